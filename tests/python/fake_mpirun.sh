#!/usr/bin/env bash
# Stands in for mpirun in the Python tests: takes -np N and mpirun's flags, runs the command once as
# rank 0 of N (the fake nsbench writes the result as rank 0 would).
np=1
while [ $# -gt 0 ]; do
  case "$1" in
    -np) np=$2; shift 2 ;;
    -x) shift 2 ;;
    --*) shift ;;
    *) break ;;
  esac
done
OMPI_COMM_WORLD_SIZE=$np OMPI_COMM_WORLD_RANK=0 exec "$@"
