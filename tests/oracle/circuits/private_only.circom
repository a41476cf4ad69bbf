pragma circom 2.0.0;

// No public signals at all: the verification key has a single IC point and
// public.json is an empty array.
template PrivateOnly() {
    signal input a;
    signal input b;
    signal c;
    signal d;

    c <== a * b;
    d <== c * (a + 1);
    d * (b - 2) === 18;
}

component main = PrivateOnly();
