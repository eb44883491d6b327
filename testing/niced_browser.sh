#!/bin/sh
# Runs the browser at its launcher's niceness (testing/browser_autogroup.ts says why): sets the
# niceness of this session's autogroup, which the browser's processes share, then becomes the
# browser. Raising a niceness needs no privilege; where autogroups are off the write fails, and
# the processes' own niceness (inherited) is all there is.
echo "$SNOWFIRE_AUTOGROUP_NICE" > /proc/self/autogroup 2>/dev/null
exec "$SNOWFIRE_BROWSER_PATH" "$@"
