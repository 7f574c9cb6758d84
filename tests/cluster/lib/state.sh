# shellcheck shell=bash
# Sourced by vcluster.sh: the record of every cluster, and its teardown.
#
# Invariants:
# - Every cluster has a state directory $VC_RUN/<prefix> holding `owner` ("pid starttime" of
#   the vcluster.sh that made it) from the moment it exists: it is written under a temporary
#   name and renamed into place, so no state directory is ever seen without an owner.
# - Every namespace a cluster creates is appended to its `netns` file *before* it is created,
#   so a teardown from the state directory alone finds everything (namespaces, their
#   processes, their /etc/netns/<name> directories).
# - Whoever tears a cluster down first claims it by renaming its directory to
#   .gone.<prefix>.<pid>.<starttime> (its own identity): rename is atomic, so exactly one
#   claimer wins, and a claimer that dies mid-teardown is itself recognisably dead.
# - A process is identified by pid *and* start time (/proc/<pid>/stat field 22), so a reused
#   pid never makes a dead owner look alive.

VC_RUN=${VCLUSTER_RUN_DIR:-/run/vcluster}

# proc_start PID: prints PID's start time in clock ticks since boot; fails if PID is gone.
proc_start() {
  local stat rest
  { stat=$(<"/proc/$1/stat"); } 2>/dev/null || return 1
  rest=${stat##*) }
  # shellcheck disable=SC2206  # the fields after "(comm) " are space-separated numbers/letters
  local f=($rest)
  echo "${f[19]}"
}

# alive PID START: whether that very process still runs.
alive() {
  local s
  s=$(proc_start "$1") || return 1
  [[ $s == "$2" ]]
}

my_identity() {
  echo "$$ $(proc_start $$)"
}

# state_create PREFIX: makes $VC_RUN/PREFIX owned by this process; fails if a cluster of
# that prefix exists.
state_create() {
  local prefix=$1 tmp
  mkdir -p "$VC_RUN"
  tmp=$VC_RUN/.new.$$.$(proc_start $$)
  mkdir "$tmp"
  my_identity >"$tmp/owner"
  : >"$tmp/netns"
  # rename(2) onto a non-empty directory fails, and every state directory holds `owner`
  if ! mv -T "$tmp" "$VC_RUN/$prefix" 2>/dev/null; then
    rm -rf "$tmp"
    return 1
  fi
}

# state_add_ns PREFIX NAME...: records namespaces before they are created.
state_add_ns() {
  local prefix=$1
  shift
  printf '%s\n' "$@" >>"$VC_RUN/$prefix/netns"
}

# ns_pids NAME...: sets PIDS to the processes in those namespaces.
ns_pids() {
  local ns
  PIDS=()
  for ns in "$@"; do
    # shellcheck disable=SC2207
    PIDS+=($(ip netns pids "$ns" 2>/dev/null || true))
  done
}

# kill_ns_processes NAME...: every process in those namespaces gets SIGTERM, and SIGKILL if it
# is still there 1 s later; returns once none is left (or warns after another second).
kill_ns_processes() {
  local sig
  for sig in TERM KILL; do
    ns_pids "$@"
    [[ ${#PIDS[@]} -eq 0 ]] && return 0
    kill -"$sig" "${PIDS[@]}" 2>/dev/null || true
    for _ in $(seq 100); do
      sleep 0.01
      ns_pids "$@"
      [[ ${#PIDS[@]} -eq 0 ]] && return 0
    done
  done
  echo "vcluster: processes ${PIDS[*]} still run in namespaces $* after SIGKILL" >&2
}

# teardown_claimed DIR: removes what the claimed state directory DIR records, then DIR.
teardown_claimed() {
  local dir=$1 names=() ns
  [[ -f $dir/netns ]] && mapfile -t names <"$dir/netns"
  if [[ ${#names[@]} -gt 0 ]]; then
    kill_ns_processes "${names[@]}"
    # -force: go on past names that were recorded but never created
    printf 'netns del %s\n' "${names[@]}" | ip -force -batch - 2>/dev/null || true
    for ns in "${names[@]}"; do
      rm -rf "/etc/netns/${ns:?}"
    done
  fi
  rm -rf "$dir"
}

# claim SRC NAME: renames state directory SRC to a claimed one of ours; prints its path, or
# fails if another claimer got there first.
claim() {
  local dst
  dst=$VC_RUN/.gone.$2.$$.$(proc_start $$)
  mv -T "$1" "$dst" 2>/dev/null || return 1
  echo "$dst"
}

# teardown PREFIX [PID START]: tears the cluster PREFIX down, if it exists (and, with PID START,
# only if that process owns it).
teardown() {
  local dir=$VC_RUN/$1 owner claimed
  [[ -d $dir ]] || return 0
  if [[ $# -eq 3 ]]; then
    { owner=$(<"$dir/owner"); } 2>/dev/null || return 0
    [[ $owner == "$2 $3" ]] || return 0
  fi
  claimed=$(claim "$dir" "$1") || return 0
  teardown_claimed "$claimed"
}

# sweep: tears down every cluster whose owner is dead, finishes teardowns whose claimer died,
# and removes state directories that never got into place.
sweep() {
  local d base owner fields pid start
  [[ -d $VC_RUN ]] || return 0
  for d in "$VC_RUN"/* "$VC_RUN"/.gone.* "$VC_RUN"/.new.*; do
    [[ -d $d ]] || continue
    base=${d##*/}
    case $base in
      .new.*)
        IFS=. read -r _ _ pid start <<<"$base"
        alive "$pid" "$start" || rm -rf "$d"
        ;;
      .gone.*)
        IFS=. read -ra fields <<<"$base"   # "" gone PREFIX PID START
        alive "${fields[3]}" "${fields[4]}" && continue
        d=$(claim "$d" "${fields[2]}") && teardown_claimed "$d"
        ;;
      *)
        { owner=$(<"$d/owner"); } 2>/dev/null || continue
        # shellcheck disable=SC2086
        alive $owner && continue
        d=$(claim "$d" "$base") && teardown_claimed "$d"
        ;;
    esac
  done
  return 0
}
