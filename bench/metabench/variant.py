"""A second metampi build of the same source with one feature compiled out, for the families
that compare "built in" with "built out" in the same run (threads: -DMETAMPI_THREADS=OFF,
hetero: -DMETAMPI_HETERO=OFF)."""
import os

from metabench.process import first_error_line, run


# The build's settings that change the library's machine code: the variant takes them from
# the build it is compared with (a build configured with -DMETAMPI_LTO=OFF against a variant
# with link-time optimisation would measure LTO, ~10 % of small-message latency, not the
# feature).
INHERITED = ("CMAKE_BUILD_TYPE", "METAMPI_LTO", "METAMPI_THREADS", "METAMPI_HETERO")


def inherited_options(build, option):
    """-D flags for the INHERITED settings of <build>/CMakeCache.txt but option's own."""
    flipped = option.split("=")[0]
    flags = []
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                name, sep, value = line.strip().partition("=")
                name = name.split(":")[0]
                if sep and name in INHERITED and name != flipped and value:
                    flags.append(f"-D{name}={value}")
    except OSError:
        pass
    return flags


def build_variant(source, build, subdir, option, timeout):
    """(<build>/<subdir>, None) once metampi is built there with -D<option> (the ctest of that
    option uses the same directory) and otherwise <build>'s INHERITED settings, or (None, the
    reason it did not build)."""
    out = os.path.join(build, subdir)
    for cmd in (["cmake", "-S", source, "-B", out, f"-D{option}", "-DMETAMPI_FORTRAN=OFF"] +
                inherited_options(build, option),
                ["cmake", "--build", out, "-j", "2", "--target", "mpi", "mpirun",
                 "metampi-hostd"]):
        status, stdout, err, _ = run(cmd, timeout)
        if status != 0:
            return None, f"{' '.join(cmd[:2])}: {first_error_line(err + stdout)}"
    return out, None
