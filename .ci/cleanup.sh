# Sourced by .ci/run: stop what this CI run started, and nothing else.
#
# .ci/run runs in a session of its own (setsid), so what it starts shares its session id, and
# every process it starts inherits GW_CI_RUN (a value unique to the run). The safety net after
# the tests stops, by pid, the processes of this user in the run's session, and those that left
# it (start_new_session) but carry the run's GW_CI_RUN: never by a name or a working directory
# that another user's or another run's servers could share. (redis-server rewrites the memory
# /proc/PID/environ reads with its title, so the session is what finds a redis the tests left.)
#
#   exec setsid --wait "$0" "$@"   # once, at the top of .ci/run (then $$ is the session id)
#   export GW_CI_RUN="gw-ci-$$-$(date +%s%N)"; trap 'gw_ci_cleanup "$GW_CI_RUN" "$$"' EXIT

gw_ci_cleanup() {
  local run="$1" sid="$2" pid session listing
  [ -n "$run" ] && [ -n "$sid" ] || return 0
  # the list first: the commands below carry the value and the session too
  listing="$(ps -u "$(id -u)" -o pid=,sid= 2>/dev/null || true)"
  while read -r pid session; do
    [ -n "$pid" ] || continue
    [ "$pid" = "$$" ] || [ "$pid" = "${BASHPID:-$$}" ] || [ "$pid" = "$sid" ] && continue
    if [ "$session" = "$sid" ] || grep -qzxF "GW_CI_RUN=$run" "/proc/$pid/environ" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
    fi
  done <<<"$listing"
}
