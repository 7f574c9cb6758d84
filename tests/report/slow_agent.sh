#!/bin/sh
# A launch agent for tests whose hosts start slowly: "slow_agent.sh HOST CMD..." sleeps
# $SLOW_SECONDS (default 3) when HOST matches one of the patterns in $SLOW_HOSTS
# (space-separated shell patterns: "slowB *s2h1"), then runs CMD... (the helper's command, or
# another agent with it: "ip netns exec HOST ...").
host=$1
shift
set -f
for pattern in $SLOW_HOSTS; do
  case $host in
    $pattern) sleep "${SLOW_SECONDS:-3}" ;;
  esac
done
exec "$@"
