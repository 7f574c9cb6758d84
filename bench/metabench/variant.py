"""A second metampi build of the same source with one feature compiled out, for the families
that compare "built in" with "built out" in the same run (threads: -DMETAMPI_THREADS=OFF,
hetero: -DMETAMPI_HETERO=OFF)."""
import os

from metabench.process import first_error_line, run


def build_variant(source, build, subdir, option, timeout):
    """(<build>/<subdir>, None) once metampi is built there with -D<option> (the ctest of that
    option uses the same directory), or (None, the reason it did not build)."""
    out = os.path.join(build, subdir)
    for cmd in (["cmake", "-S", source, "-B", out, f"-D{option}", "-DMETAMPI_FORTRAN=OFF"],
                ["cmake", "--build", out, "-j", "2", "--target", "mpi", "mpirun",
                 "metampi-hostd"]):
        status, stdout, err, _ = run(cmd, timeout)
        if status != 0:
            return None, f"{' '.join(cmd[:2])}: {first_error_line(err + stdout)}"
    return out, None
