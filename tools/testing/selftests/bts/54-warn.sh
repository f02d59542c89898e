#!/bin/sh
# A WARN is not captured by default; with bts_capture_warn it is, and the
# CPU records again afterwards either way.
# bts-boot: own
# bts-expect: warn,oops
# bts-cmdline: panic_on_oops=0
. ./lib-oops.sh
arm
provoke "echo WARNING > $DIRECT"
is "a WARN is not captured by default" "$(cat $B/capture)" none
echo 1 > $T/options/bts_capture_warn
provoke "echo WARNING > $DIRECT"
case "$(cat $B/capture)" in
"WARN on cpu "*) ok "with bts_capture_warn a WARN is captured" ;;
*) not_ok "with bts_capture_warn a WARN is captured (got '$(cat $B/capture)')" ;;
esac
echo 0 > $T/options/bts_capture_warn
echo 0 > $B/capture
echo 0 > $T/options/bts_capture_oops
provoke "echo EXCEPTION > $DIRECT"
is "with bts_capture_oops off an oops is not captured" "$(cat $B/capture)" none
done_testing
