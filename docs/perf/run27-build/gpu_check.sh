#!/usr/bin/env bash
# Run 27's GPU proof. It ran an earlier form of scripts/gpu_proof.sh (memcheck and racecheck
# only, with no time limits); the proof now lives there, in one place.
exec bash "$(dirname "$0")/../../../scripts/gpu_proof.sh"
