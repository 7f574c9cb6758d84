# shellcheck shell=bash
# Sourced by vcluster.sh: the emulated networks.
#
# Addressing: one /16, $VC_NET.0.0/16; the third octet is the site (0 for a flat cluster, 1..S
# with --sites), the fourth the host within its LAN (1..253); .254 of a site's LAN is the WAN
# router. Every cluster is its own set of namespaces (hosts, one LAN namespace holding the
# bridges, one router namespace), reachable from nowhere else, so parallel clusters use the
# same addresses without meeting: only namespace names and /etc/netns/<name> are shared, and
# those carry the cluster's prefix.
#
# IPv6 (--ipv6): host i of site s (0 when flat) also or only has fd00:0:0:<s>::<i in hex>/64,
# the router fd00:0:0:<s>::fe; the fourth group is the site, as the third octet is in IPv4.
# The addresses skip duplicate detection (nodad): they can be bound at once.
#
# Inputs (set by vcluster.sh): PREFIX, NHOSTS, SITES (0: flat), PER_SITE, RATE, MTU,
# WAN_DELAY, WAN_RATE, WAN_LOSS, WAN_SEED, WANEMU, WANEMU_ARGS (more of its options, an
# array), STATE (the cluster's state directory),
# IPV6 ("" none; only, dual, or per site a comma-separated list of only/dual/no).
# Outputs: HOSTS, ADDRS (each host's first address: its IPv4 one if it has one), ADDRS6 (its
# IPv6 one or "-"), FAM_OF ("4", "6" or "46") (parallel arrays), LAN_NS, WAN_NS (empty when
# flat).

VC_NET=10.0
VC_NET6=fd00:0:0
VC_ROUTER_HOST=254
VC_WAN_TABLE=100
VC_NAME_MAX=15

die() {
  echo "vcluster: $*" >&2
  exit 1
}

# family_of SITE: the families of the site's hosts (4, 6 or 46) under --ipv6.
family_of() {
  local -a spec
  IFS=, read -ra spec <<<"$IPV6"
  local mode=${spec[0]:-no}
  [[ ${#spec[@]} -gt 1 ]] && mode=${spec[$(($1 > 0 ? $1 - 1 : 0))]:-no}
  case $mode in
    only) echo 6 ;;
    dual) echo 46 ;;
    *) echo 4 ;;
  esac
}

# v6_of SITE HOST: the host's IPv6 address (as inet_ntop writes it).
v6_of() {
  if [[ $1 -eq 0 ]]; then printf 'fd00::%x' "$2"; else printf '%s:%x::%x' "$VC_NET6" "$1" "$2"; fi
}

# plan_cluster: names and addresses of everything, before anything is created.
plan_cluster() {
  local s i
  HOSTS=() ADDRS=() ADDRS6=() FAM_OF=() HOST_NO=() PORTS=() SITE_OF=()
  LAN_NS=${PREFIX}lan
  WAN_NS=
  if [[ $SITES -eq 0 ]]; then
    for ((i = 1; i <= NHOSTS; i++)); do
      HOSTS+=("${PREFIX}h$i") ADDRS+=("$VC_NET.0.$i") PORTS+=("h$i") SITE_OF+=(0)
    done
  else
    WAN_NS=${PREFIX}wan
    for ((s = 1; s <= SITES; s++)); do
      for ((i = 1; i <= PER_SITE; i++)); do
        HOSTS+=("${PREFIX}s${s}h$i") ADDRS+=("$VC_NET.$s.$i") PORTS+=("s${s}h$i") SITE_OF+=("$s")
      done
    done
  fi
  local j f
  for j in "${!HOSTS[@]}"; do
    f=$(family_of "${SITE_OF[j]}")
    FAM_OF+=("$f")
    s=${SITE_OF[j]} i=${ADDRS[j]##*.}
    HOST_NO+=("$i")
    if [[ $f == *6 ]]; then ADDRS6+=("$(v6_of "$s" "$i")"); else ADDRS6+=(-); fi
    if [[ $f == 6 ]]; then ADDRS[j]=${ADDRS6[j]}; fi
  done
  local n
  for n in "${HOSTS[@]}" "$LAN_NS" ${WAN_NS:+"$WAN_NS"}; do
    [[ ${#n} -le $VC_NAME_MAX ]] ||
      die "name '$n' is longer than $VC_NAME_MAX characters (choose a shorter --prefix)"
  done
}

# lan_ids: the LAN (bridge) numbers of the cluster.
lan_ids() {
  if [[ $SITES -eq 0 ]]; then echo 0; else seq 1 "$SITES"; fi
}

# ipv6_quiet DEV: batch line keeping DEV without IPv6 link-local addresses, so no router
# solicitations or MLD reports disturb measurements (a no-op without IPv6).
ipv6_quiet() {
  [[ -d /proc/sys/net/ipv6 ]] && echo "link set $1 addrgenmode none"
  return 0
}

mtu_line() {
  [[ -n $MTU ]] && echo "link set $1 mtu $MTU"
  return 0
}

# create_namespaces: fails (with the reason on stderr) if the namespaces cannot be created,
# which vcluster.sh reports as "cannot emulate a cluster here".
create_namespaces() {
  local all=("$LAN_NS" ${WAN_NS:+"$WAN_NS"} "${HOSTS[@]}") err
  state_add_ns "$PREFIX" "${all[@]}"
  err=$(netns_add "${all[@]}" 2>&1) && return 0
  echo "cannot create the network namespaces ${all[*]}: $err" >&2
  return 1
}

# netns_add NAME...: creates the namespaces, one cluster at a time: concurrent first uses of
# `ip netns add` race on setting up /run/netns.
netns_add() {
  local lock status=0
  exec {lock}>"$VC_RUN/lock"
  flock "$lock"
  printf 'netns add %s\n' "$@" | ip -batch - || status=$?
  exec {lock}>&-
  return "$status"
}

# build_lans: the bridges (one per LAN) and a veth from every host (and the router) to its
# LAN's bridge. Bridges run without STP, so a port forwards as soon as it is up.
build_lans() {
  local s j
  {
    for s in $(lan_ids); do
      echo "link add br$s type bridge"
      ipv6_quiet "br$s"
      echo "link set br$s up"
    done
    for j in "${!HOSTS[@]}"; do
      echo "link add ${PORTS[j]} type veth peer name eth0 netns ${HOSTS[j]}"
      ipv6_quiet "${PORTS[j]}"
      mtu_line "${PORTS[j]}"
      echo "link set ${PORTS[j]} master br${SITE_OF[j]} up"
    done
    if [[ -n $WAN_NS ]]; then
      for s in $(lan_ids); do
        echo "link add s${s}r type veth peer name s$s netns $WAN_NS"
        ipv6_quiet "s${s}r"
        mtu_line "s${s}r"
        echo "link set s${s}r master br$s up"
      done
    fi
  } | ip -n "$LAN_NS" -batch - || die "cannot build the LANs in namespace $LAN_NS"
}

build_hosts() {
  local j
  for j in "${!HOSTS[@]}"; do
    {
      echo "link set lo up"
      ipv6_quiet eth0
      mtu_line eth0
      [[ ${FAM_OF[j]} == 6 ]] || echo "addr add $VC_NET.${SITE_OF[j]}.${HOST_NO[j]}/24 dev eth0"
      [[ ${FAM_OF[j]} == 4 ]] || echo "addr add ${ADDRS6[j]}/64 dev eth0 nodad"
      echo "link set eth0 up"
      if [[ -n $WAN_NS && ${FAM_OF[j]} != 6 ]]; then
        echo "route add $VC_NET.0.0/16 via $VC_NET.${SITE_OF[j]}.$VC_ROUTER_HOST"
      fi
      if [[ -n $WAN_NS && ${FAM_OF[j]} != 4 ]]; then
        echo "route add $VC_NET6::/48 via $(v6_of "${SITE_OF[j]}" "$VC_ROUTER_HOST")"
      fi
    } | ip -n "${HOSTS[j]}" -batch - || die "cannot configure host ${HOSTS[j]}"
  done
}

# write_hosts_files: /etc/netns/<host>/hosts, which `ip netns exec <host>` mounts over
# /etc/hosts, so every host resolves every cluster name.
write_hosts_files() {
  local h j
  for h in "${HOSTS[@]}"; do
    mkdir -p "/etc/netns/$h"
    {
      printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
      for j in "${!HOSTS[@]}"; do
        [[ ${FAM_OF[j]} == 6 ]] || printf '%s\t%s\n' "$VC_NET.${SITE_OF[j]}.${HOST_NO[j]}" "${HOSTS[j]}"
        [[ ${FAM_OF[j]} == 4 ]] || printf '%s\t%s\n' "${ADDRS6[j]}" "${HOSTS[j]}"
      done
    } >"/etc/netns/$h/hosts"
  done
}

# rate_bits RATE: RATE (tc syntax: N, Nbit, Nkbit, Nmbit, Ngbit) in bit/s.
rate_bits() {
  local n unit
  [[ $1 =~ ^([0-9]+)([kmg]?)(bit)?$ ]] || die "bad rate '$1' (expected e.g. 50mbit, 1gbit)"
  n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
  case $unit in
    k) n=$((n * 1000)) ;;
    m) n=$((n * 1000000)) ;;
    g) n=$((n * 1000000000)) ;;
  esac
  [[ $n -gt 0 ]] || die "bad rate '$1': must be positive"
  echo "$n"
}

# tbf_args RATE: a token bucket of RATE whose bucket holds 1 ms of traffic (at least 64 KiB, a
# whole GSO packet of the veth, which tbf would otherwise have to split) and whose queue holds
# 20 ms (at least 128 KiB): enough for one TCP stream to fill the link.
tbf_args() {
  local bits burst limit
  bits=$(rate_bits "$1")
  burst=$((bits / 8 / 1000))
  ((burst < 65536)) && burst=65536
  limit=$((bits / 8 / 50))
  ((limit < 131072)) && limit=131072
  echo "rate $bits burst $burst limit $limit"
}

# shape_links: RATE on both directions of every host's link: egress of the host's eth0 and
# egress of its bridge port.
shape_links() {
  local args j
  [[ -n $RATE ]] || return 0
  args=$(tbf_args "$RATE")
  for j in "${!HOSTS[@]}"; do
    # shellcheck disable=SC2086
    tc -n "${HOSTS[j]}" qdisc add dev eth0 root tbf $args ||
      die "cannot shape eth0 of ${HOSTS[j]} to $RATE"
  done
  for j in "${!PORTS[@]}"; do
    echo "qdisc add dev ${PORTS[j]} root tbf $args"
  done | tc -n "$LAN_NS" -batch - || die "cannot shape the bridge ports in $LAN_NS to $RATE"
}

# build_router: the router namespace forwards between the site LANs only through the TUN
# device wan0, where wanemu delays, shapes and drops: packets arriving from a site interface
# are routed (table $VC_WAN_TABLE) into wan0; what wanemu writes back arrives on wan0 and
# takes the main table to the destination site. Reverse-path filtering is off, since a
# packet from site 1 arrives on wan0, not on s1.
build_router() {
  local s
  [[ -n $WAN_NS ]] || return 0
  {
    echo "link set lo up"
    for s in $(lan_ids); do
      echo "addr add $VC_NET.$s.$VC_ROUTER_HOST/24 dev s$s"
      # a forwarded packet's neighbour solicitation comes from a link-local address
      [[ -z $IPV6 ]] || echo "addr add $(v6_of "$s" "$VC_ROUTER_HOST")/64 dev s$s nodad"
      [[ -z $IPV6 ]] || echo "addr add fe80::fe/64 dev s$s nodad"
      ipv6_quiet "s$s"
      mtu_line "s$s"
      echo "link set s$s up"
      echo "rule add iif s$s lookup $VC_WAN_TABLE priority 100"
    done
    echo "tuntap add dev wan0 mode tun"
    ipv6_quiet wan0
    mtu_line wan0
    echo "link set wan0 up"
    echo "route add default dev wan0 table $VC_WAN_TABLE"
  } | ip -n "$WAN_NS" -batch - || die "cannot build the router in namespace $WAN_NS"
  if [[ -n $IPV6 ]]; then
    {
      for s in $(lan_ids); do echo "rule add iif s$s lookup $VC_WAN_TABLE priority 100"; done
      echo "route add default dev wan0 table $VC_WAN_TABLE"
    } | ip -6 -n "$WAN_NS" -batch - || die "cannot route IPv6 in the router namespace $WAN_NS"
  fi
  # shellcheck disable=SC2016  # expanded by that sh
  ip netns exec "$WAN_NS" sh -c '
    echo 1 > /proc/sys/net/ipv4/ip_forward
    for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > "$f"; done
    for f in /proc/sys/net/ipv4/conf/*/send_redirects; do echo 0 > "$f"; done
    if [ -d /proc/sys/net/ipv6 ]; then
      echo 1 > /proc/sys/net/ipv6/conf/all/forwarding
      for f in /proc/sys/net/ipv6/conf/*/accept_redirects; do echo 0 > "$f"; done
    fi' ||
    die "cannot set the forwarding sysctls of $WAN_NS"
}

# start_wanemu: runs the emulator on wan0 and waits until it has attached (its ready
# file appears); it runs until the teardown kills the router namespace's processes.
start_wanemu() {
  local i ready=$STATE/wanemu.ready log=$STATE/wanemu.log
  [[ -n $WAN_NS ]] || return 0
  [[ -x $WANEMU ]] || die "the WAN emulator '$WANEMU' is not an executable (give --wanemu PATH)"
  ip netns exec "$WAN_NS" "$WANEMU" --tun wan0 --delay "$WAN_DELAY" --rate "$WAN_RATE" \
    --loss "$WAN_LOSS" --seed "$WAN_SEED" ${WANEMU_ARGS[@]+"${WANEMU_ARGS[@]}"} --ready "$ready" \
    </dev/null >"$log" 2>&1 {GUARD_FD}>&- &
  for i in $(seq 300); do
    [[ -e $ready ]] && return 0
    kill -0 $! 2>/dev/null || die "the WAN emulator exited at start: $(<"$log")"
    sleep 0.01
  done
  die "the WAN emulator did not attach to wan0 within 3 s: $(<"$log")"
}
