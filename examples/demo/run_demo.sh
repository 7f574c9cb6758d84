#!/usr/bin/env bash
# run_demo.sh [options]        (`make demo` runs it)
#
# Runs metampi-demo (a 3-D stencil code) twice with the same ranks and grid: on one site
# (4 emulated hosts of 2 ranks on one LAN) and on two emulated sites (2 sites x 2 hosts x 2
# ranks joined by an emulated WAN: 5 ms one way, 1 Gbit/s), then compares the two checksums,
# prints the time per step of both runs split into computation, local and WAN communication,
# and plots it (PNG). With an s390x build (make build-s390x, or make demo's hetero-programs)
# and qemu-s390x, a third run has the second site's ranks big-endian s390x under qemu: its
# checksum must be the same too (issue 19). Without network namespaces (not root, no
# `ip netns`) it runs the one-site part on this machine alone and says why.
#
#   --build DIR        the build tree (default: build)
#   --out DIR          logs, per-step times and the plot (default: BUILD/demo)
#   --grid G           the global grid, N or NXxNYxNZ (default 96)
#   --steps N          Jacobi steps per run (default 200)
#   --ranks-per-host R ranks on each of the 4 hosts (default 2)
#   --wan-delay D      one-way delay of the emulated WAN (default 5ms)
#   --wan-rate R       its rate (default 1gbit)
#   --wan MODE         how ranks at different sites talk: gateway (the site gateways),
#                      direct (mpirun --direct-wan) or auto (default: the gateways where
#                      this mpirun has them, else direct)
#   --s390x DIR        the s390x build tree for the third run (default: BUILD/../build-s390x
#                      when it holds metampi-demo); --s390x none skips the third run
#   --local            run the one-site part on this machine only (no emulated cluster)
# Exit status: 0 when every run worked and the checksums agree, 1 otherwise, 2 bad usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VCLUSTER=$ROOT/tests/cluster/vcluster.sh

help() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
usage() {
  echo "run_demo.sh: $* (run_demo.sh --help lists the options)" >&2
  exit 2
}

# ---- inside an emulated cluster: write the description, start the job -----------------
# run_demo.sh --inside SITES WAN_MODE MPIRUN DEMO ARGS...  (SITES 1 or 2; the hosts and the
# agent come from vcluster.sh's environment). Every host gets --ranks-per-host slots; with
# one site all hosts belong to it.
if [[ ${1:-} == --inside ]]; then
  sites=$2 wan=$3 mpirun=$4 rph=$5
  shift 5
  read -ra hosts <<<"$VCLUSTER_HOSTS"
  read -ra addrs <<<"$VCLUSTER_ADDRS"
  desc=$(mktemp /tmp/metampi-demo.XXXXXX.ini)
  trap 'rm -f "$desc"' EXIT
  names=(stuttgart berlin)
  per_site=$((${#hosts[@]} / sites))
  {
    echo "; written by examples/demo/run_demo.sh for the emulated cluster of this run"
    for ((s = 0; s < sites; s++)); do
      list=''
      for ((h = s * per_site; h < (s + 1) * per_site; h++)); do
        list+=${list:+, }${hosts[h]}:$rph
      done
      echo "[site ${names[s]}]"
      echo "hosts = $list"
      # the third run: the second site's ranks start through this prefix (s390x under qemu)
      [[ $s -eq 1 && -n ${DEMO_SITE2_EXEC_PREFIX:-} ]] && echo "exec_prefix = $DEMO_SITE2_EXEC_PREFIX"
      echo "gateway = ${hosts[s * per_site]}"
      echo "wan = ${addrs[s * per_site]}:7000"
    done
  } >"$desc"
  run() {
    # --bind-to none: the emulated hosts share this machine's cores
    "$mpirun" --metacomputer "$desc" --bind-to none --launch-agent "$VCLUSTER_AGENT" "$@"
  }
  if [[ $sites -eq 1 || $wan == gateway ]]; then
    run "$@"
  elif [[ $wan == direct ]]; then
    run --direct-wan "$@"
  else
    # auto: mpirun checks its options before it starts anything and says when a description
    # of several sites still needs --direct-wan; a job of /bin/true asks it (and, where the
    # gateways exist, costs one start of the job)
    probe=$(run true 2>&1 >/dev/null) || true
    if grep -q -- '--direct-wan' <<<"$probe"; then
      echo "(this mpirun has no site gateways yet: ranks at different sites connect" \
           "directly, --direct-wan)"
      run --direct-wan "$@"
    else
      run "$@"
    fi
  fi
  exit
fi

# ---- the runner -------------------------------------------------------------------------
build=$ROOT/build out='' grid=96 steps=200 rph=2 delay=5ms rate=1gbit wan=auto local=0 s390x=
while [[ $# -gt 0 ]]; do
  case $1 in
    --local) local=1; shift; continue ;;
    -h|--help) help; exit 0 ;;
    --build|--out|--grid|--steps|--ranks-per-host|--wan-delay|--wan-rate|--wan|--s390x)
      [[ $# -ge 2 ]] || usage "$1: missing value" ;;
    *) usage "unknown option '$1'" ;;
  esac
  case $1 in
    --build) build=$2 ;;
    --out) out=$2 ;;
    --grid) grid=$2 ;;
    --steps) steps=$2 ;;
    --ranks-per-host) rph=$2 ;;
    --wan-delay) delay=$2 ;;
    --wan-rate) rate=$2 ;;
    --wan) wan=$2 ;;
    --s390x) s390x=$2 ;;
  esac
  shift 2
done
[[ $wan =~ ^(auto|gateway|direct)$ ]] || usage "--wan: expected auto, gateway or direct, got '$wan'"
[[ $rph =~ ^[1-9][0-9]?$ ]] || usage "--ranks-per-host: expected 1-99, got '$rph'"
build=$(cd "$build" 2>/dev/null && pwd) || usage "--build: no directory '$build'"
out=${out:-$build/demo}
mpirun=$build/bin/mpirun demo=$build/bin/metampi-demo wanemu=$build/tests/bin/wanemu
for f in "$mpirun" "$demo"; do
  [[ -x $f ]] || { echo "run_demo.sh: $f is missing: run make build first" >&2; exit 1; }
done
# the third run's s390x build, and why there is none
s390x=${s390x:-$(dirname "$build")/build-s390x}
why390=''
if [[ $s390x == none ]]; then
  why390='--s390x none was given'
elif [[ ! -x $s390x/bin/metampi-demo ]]; then
  why390="no s390x build at $s390x (make build-s390x)"
elif ! command -v qemu-s390x >/dev/null; then
  why390='qemu-s390x is not installed (scripts/install-deps.sh installs it)'
else
  s390x=$(cd "$s390x" && pwd)
fi
mkdir -p "$out"
rm -f "$out"/one-site.* "$out"/two-sites.* "$out"/s390x-site.* "$out"/demo.png
ranks=$((4 * rph))
args=(--grid "$grid" --steps "$steps" --progress lines)

# show FILE: the demo's output, copied to FILE; on a terminal its "step S/N" lines become one
# bar rewritten in place (mpirun forwards whole lines, so the bar is drawn here).
show() {
  local log=$1 line bar=0 s n fill
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ -t 1 && $line =~ ^step\ ([0-9]+)/([0-9]+)\ (.*)$ ]]; then
      s=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
      fill=$((24 * s / n))
      printf '\rstep %s/%s [%s%s] %s\033[K' "$s" "$n" "$(printf '%*s' $fill '' | tr ' ' '#')" \
             "$(printf '%*s' $((24 - fill)) '' | tr ' ' '.')" "${BASH_REMATCH[3]}"
      bar=1
      continue
    fi
    [[ $bar -eq 1 ]] && { printf '\n'; bar=0; }
    printf '%s\n' "$line"
  done
  [[ $bar -eq 1 ]] && printf '\n'
  return 0
}

# run_part NAME CMD...: runs CMD (the whole job), its output through show; mpirun's status.
run_part() {
  local name=$1 status
  shift
  set +e
  "$@" 2>&1 | show "$out/$name.log"
  status=${PIPESTATUS[0]}
  set -e
  return "$status"
}

checksum_of() { sed -n 's/^result: checksum \(0x[0-9a-f]*\) .*/\1/p' "$out/$1.log"; }
# the two lines after "time per step": compute, local, WAN, total, and the allreduce's share
split_of() {
  awk '/^time per step/ {
         getline a; getline b
         gsub(/[^0-9. ]/, " ", a); split(a, x, " ")
         sub(/.*MPI_Allreduce /, "", b); sub(/,.*/, "", b)
         print x[1], x[2], x[3], x[4], b
       }' "$out/$1.log"
}

have_sites=0
"$mpirun" --help 2>&1 | grep -q -- '--metacomputer' && have_sites=1
why=''
if [[ $local -eq 1 ]]; then
  why='--local was given'
elif [[ $have_sites -eq 0 ]]; then
  why="this mpirun has no --metacomputer"
elif [[ ! -x $wanemu ]]; then
  why="the WAN emulator $wanemu is not built"
else
  check=0
  reason=$("$VCLUSTER" --check --sites 2 --wanemu "$wanemu" 2>&1) || check=$?
  reason=${reason#vcluster: }
  [[ $check -eq 0 ]] ||
    why=${reason:-"no emulated cluster here (vcluster.sh --check: exit status $check)"}
fi

echo "== metampi demo: a 3-D Jacobi stencil, $ranks ranks, grid $grid, $steps steps"
status=0
if [[ -n $why ]]; then
  echo "== one site: $ranks ranks on this machine (the two-site part is skipped: $why)"
  run_part one-site "$mpirun" -n "$ranks" "$demo" "${args[@]}" --times "$out/one-site.times" \
    || status=$?
else
  echo "== one site: 4 emulated hosts x $rph ranks on one LAN"
  run_part one-site "$VCLUSTER" --hosts 4 -- \
    "$HERE/run_demo.sh" --inside 1 "$wan" "$mpirun" "$rph" -n "$ranks" "$demo" "${args[@]}" \
    --times "$out/one-site.times" || status=$?
  echo
  echo "== two sites: 2 sites x 2 emulated hosts x $rph ranks, WAN $delay one way, $rate"
  run_part two-sites "$VCLUSTER" --sites 2 --hosts-per-site 2 --wan-delay "$delay" \
    --wan-rate "$rate" --wanemu "$wanemu" -- \
    "$HERE/run_demo.sh" --inside 2 "$wan" "$mpirun" "$rph" -n "$ranks" "$demo" "${args[@]}" \
    --times "$out/two-sites.times" || status=$?
  echo
  if [[ -n $why390 ]]; then
    echo "== the run with an s390x site is skipped: $why390"
  else
    echo "== two sites, the second of big-endian s390x ranks (qemu-s390x): the same job"
    DEMO_SITE2_EXEC_PREFIX="$ROOT/tests/hetero/s390x_exec.sh $build $s390x" \
    run_part s390x-site "$VCLUSTER" --sites 2 --hosts-per-site 2 --wan-delay "$delay" \
      --wan-rate "$rate" --wanemu "$wanemu" -- \
      "$HERE/run_demo.sh" --inside 2 "$wan" "$mpirun" "$rph" -n "$ranks" "$demo" "${args[@]}" \
      --times "$out/s390x-site.times" || status=$?
  fi
fi
echo
if [[ $status -ne 0 ]]; then
  echo "run_demo.sh: a run failed (exit status $status); its output is in $out" >&2
  exit 1
fi

echo "== time per step, ms (mean over the $ranks ranks; the first 2 steps, which open the" \
     "connections, left out)"
printf '%-10s %9s %11s %9s %9s   %s\n' '' compute 'local comm' 'WAN comm' total \
  '(of which MPI_Allreduce)'
parts=(one-site)
[[ -z $why ]] && parts+=(two-sites)
[[ -z $why && -z $why390 ]] && parts+=(s390x-site)
for p in "${parts[@]}"; do
  read -r c l w t r < <(split_of "$p") || true
  printf '%-10s %9s %11s %9s %9s   %s\n' "${p//-/ }" "${c:-?}" "${l:-?}" "${w:-?}" "${t:-?}" \
    "(${r:-?})"
done

one=$(checksum_of one-site)
[[ -n $one ]] || { echo "run_demo.sh: the one-site run printed no checksum" >&2; exit 1; }
if [[ -n $why ]]; then
  echo "== checksum $one (one site only: $why)"
else
  two=$(checksum_of two-sites)
  if [[ $one != "$two" ]]; then
    echo "== checksums DIFFER: $one on one site, ${two:-none} on two sites" >&2
    exit 1
  fi
  echo "== checksums identical: $one on one site and on two sites"
  if [[ -z $why390 ]]; then
    three=$(checksum_of s390x-site)
    if [[ $one != "$three" ]]; then
      echo "== checksums DIFFER: $one on one site, ${three:-none} with an s390x site" >&2
      exit 1
    fi
    echo "== checksums identical: $one also with the second site's ranks on s390x"
  fi
fi

times=("$out/one-site.times")
[[ -z $why ]] && times+=("$out/two-sites.times")
# Debian's python3-matplotlib belongs to the system interpreter
python=/usr/bin/python3
[[ -x $python ]] || python=python3
if "$python" -c 'import matplotlib' 2>/dev/null; then
  "$python" "$HERE/plot_demo.py" --out "$out/demo.png" "${times[@]}"
  echo "== plot: $out/demo.png"
else
  echo "== no plot: python3-matplotlib is not installed (scripts/install-deps.sh installs it)"
fi
