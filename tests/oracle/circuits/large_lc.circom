pragma circom 2.0.0;

// Large linear combinations: a bit decomposition (one constraint whose LC
// holds every bit with coefficient 2^i), a weighted sum of many private
// signals with large and negative constants inside a product (a long A row
// and a long B row), and constants everywhere.
// Public signals: out, then in.
template LargeLc(nBits, nTerms) {
    signal input in;
    signal input x[nTerms];
    signal output out;
    signal bits[nBits];
    signal prod;

    var acc = 0;
    var e2 = 1;
    for (var i = 0; i < nBits; i++) {
        bits[i] <-- (in >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        acc += bits[i] * e2;
        e2 = e2 + e2;
    }
    acc === in;

    var sa = 0;
    var sb = 11;
    for (var i = 0; i < nTerms; i++) {
        // big constants near the field size and negative ones (p - k)
        sa += x[i] * (0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000 - i * 1000003);
        sb += x[i] * (i + 1) - bits[i % nBits] * 17;
    }
    prod <== sa * sb;
    out <== prod * (in + 0x1234567890abcdef1234567890abcdef) + 42;
}

component main {public [in]} = LargeLc(64, 120);
