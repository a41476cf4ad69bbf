pragma circom 2.0.0;

// Several public inputs and outputs, constants folded into the constraints.
// Public signals (snarkjs order): out, sq, then a[0..n-1].
template MultiPublic(n) {
    signal input a[n];
    signal input b;
    signal output out;
    signal output sq;
    signal prod[n];

    prod[0] <== a[0] * b;
    for (var i = 1; i < n; i++) {
        prod[i] <== prod[i - 1] * (a[i] + 3);
    }
    out <== prod[n - 1] + 7;
    sq <== out * out - 5 * b;
}

component main {public [a]} = MultiPublic(4);
