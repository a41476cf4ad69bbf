pragma circom 2.0.0;

// A MiMC-style permutation chain, x <- (x + k_i)^7 with round constants: four
// multiplications per round, so about 4 * nRounds constraints. The size of
// the benchmark circuits (main files below pick nRounds).
template MimcChain(nRounds) {
    signal input x;
    signal input k;
    signal output out;
    signal t2[nRounds];
    signal t4[nRounds];
    signal t6[nRounds];
    signal s[nRounds + 1];

    s[0] <== x;
    for (var i = 0; i < nRounds; i++) {
        var c = (i + 1) * 0x2c4f3a9b7d1e5f60 + 0x123456789;
        t2[i] <== (s[i] + k + c) * (s[i] + k + c);
        t4[i] <== t2[i] * t2[i];
        t6[i] <== t4[i] * t2[i];
        s[i + 1] <== t6[i] * (s[i] + k + c);
    }
    out <== s[nRounds];
}
