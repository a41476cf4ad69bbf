pragma circom 2.0.0;
include "mimc_chain.circom";
// 4000 constraints (+2 public rows +1): domain 2^12, the largest the 2^12 ptau allows.
component main {public [x]} = MimcChain(1000);
