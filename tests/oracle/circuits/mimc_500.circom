pragma circom 2.0.0;
include "mimc_chain.circom";
// 2000 constraints: domain 2^11.
component main {public [x]} = MimcChain(500);
