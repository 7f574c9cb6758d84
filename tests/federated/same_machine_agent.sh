#!/bin/sh
# A launch agent for tests: runs the helper of "host" $1 on this machine (mpirun --launch-agent
# "same_machine_agent.sh {host}" gives it the host name, then the helper's command).
shift
exec "$@"
