#!/bin/bash
# Session 13 call 5 (bundle of 1cccd3c): issue 15's 8 MiB load through the
# daemon, as in session 8 call 5 and session 12 call 5.
OUT=$OUT CUZK_SKIP=smoke2k,tests CUZK_LOAD_JOBS=24 CUZK_LOAD_CONCURRENCY=12 CUZK_SYNTH="8 8" \
  timeout 250 bash tools/gpu-host/bundle_load_run.sh out/cuzk-h200.tar.gz
