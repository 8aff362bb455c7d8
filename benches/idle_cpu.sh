#!/bin/sh
# Idle CPU of `aitools console` and of `aitools oui connect` dialled to it:
# utime+stime (/proc/PID/stat, clock ticks) and context switches of all
# threads over SECS seconds, nothing happening in the workspace.
# Usage: benches/idle_cpu.sh [BIN] [SECS]
set -eu
BIN=${1:-target/debug/aitools}
SECS=${2:-30}
BIN=$(realpath "$BIN")
W=$(mktemp -d); S=$(mktemp -d); chmod 700 "$S"
trap 'kill $CON $CPID 2>/dev/null; rm -rf "$W" "$S"' EXIT
cd "$W"; git init -q; echo a > a.txt
export XDG_STATE_HOME="$S"
"$BIN" write b.txt --content "b
" >/dev/null
"$BIN" console --port 0 > "$S/line" 2>/dev/null & CPID=$!
while [ ! -s "$S/line" ]; do sleep 0.05; done
OUI=$(sed 's/.*"oui_url":"\([^"]*\)".*/\1/' "$S/line")
TOKEN=$(sed 's/.*"token":"\([^"]*\)".*/\1/' "$S/line")
"$BIN" oui connect "$OUI" --token "$TOKEN" > "$S/connect.out" 2>&1 & CON=$!
sleep 3
echo "sockets: $(ss -tnp 2>/dev/null | grep -c "pid=$CON,")  established by oui connect"
if command -v strace >/dev/null; then timeout 5 strace -c -f -p $CON 2>&1 | sed -n "1,12p" || true; fi
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
csw() { cat /proc/$1/task/*/status | awk '/ctxt_switches/ {s+=$2} END {print s}'; }
c0=$(ticks $CON); p0=$(ticks $CPID); cs0=$(csw $CON); ps0=$(csw $CPID)
sleep "$SECS"
c1=$(ticks $CON); p1=$(ticks $CPID); cs1=$(csw $CON); ps1=$(csw $CPID)
hz=$(getconf CLK_TCK)
echo "oui connect: $((c1-c0)) ticks (1/$hz s) in ${SECS}s, $((cs1-cs0)) context switches, threads $(ls /proc/$CON/task | wc -l)"
echo "console:     $((p1-p0)) ticks (1/$hz s) in ${SECS}s, $((ps1-ps0)) context switches, threads $(ls /proc/$CPID/task | wc -l)"
echo "connect output (first 300 bytes): $(head -c 300 "$S/connect.out")"
