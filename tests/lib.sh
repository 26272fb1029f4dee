# Sourced by shell tests: HEXPACK (the binary; ./build/hexpack by default), SRC (the sources:
# HX_SOURCE_DIR or .), MPIEXEC (mpiexec by default; Open MPI allowed as root and oversubscribed),
# dir (a temporary folder, removed at exit), fail (0 until a check fails) and
# check NAME CONDITION (prints "ok   NAME" or "FAIL NAME" and sets fail=1).
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
SRC=${HX_SOURCE_DIR:-.}
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
