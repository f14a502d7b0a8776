#!/bin/sh
# The inherited terminal: under script(1) (a real pty), a guest of `sbx run` changes termios,
# the window size, TIOCEXCL, O_NONBLOCK on fd 0 and stops output (TCXONC TCOOFF); afterwards
# the host's terminal must be as it was and a write must not block. The control does the same
# attack without sbx and must see every change stick. A non-terminal fd shared with the guest
# gets its file status flags back. Every command runs under timeout(1).
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
chmod 755 "$dir"
trap 'rm -rf "$dir"; rm -f "$tmp_err"' EXIT
PY=/usr/bin/python3 # the jail sees /usr only
if ! command -v script >/dev/null || [ ! -x "$PY" ]; then
    echo "script(1) or $PY missing: tty checks skipped"
    finish
    exit
fi
if ! timeout 20 "$SBX" run -- true 2>/dev/null; then
    echo "process tier unavailable here: tty checks skipped"
    finish
    exit
fi

# The attack, on fd 0 (the terminal): every change that could outlive the process.
cat >"$dir/attack.py" <<'EOF'
import fcntl, os, struct, sys, termios
a = termios.tcgetattr(0)
a[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG)
termios.tcsetattr(0, termios.TCSANOW, a)
fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 11, 22, 0, 0))
fcntl.ioctl(0, termios.TIOCEXCL)
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)
os.write(2, b"attacked\n")
termios.tcflow(0, termios.TCOOFF)
EOF
# The host's view of its terminal, one line: termios, size, exclusive, nonblocking.
cat >"$dir/state.py" <<'EOF'
import fcntl, os, struct, termios
a = termios.tcgetattr(0)
rows, cols = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))[:2]
excl = struct.unpack("i", fcntl.ioctl(0, 0x80045440, b"\0" * 4))[0]  # TIOCGEXCL
nb = bool(fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK)
print("lflag=%#x size=%dx%d excl=%d nonblock=%d" % (a[3], rows, cols, excl, nb))
EOF
# Undoes the attack so script(1) can finish (only the control needs it).
cat >"$dir/undo.py" <<'EOF'
import fcntl, os, termios
termios.tcflow(0, termios.TCOON)
fcntl.ioctl(0, termios.TIOCNXCL)
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) & ~os.O_NONBLOCK)
EOF
# inner.sh ATTACK...: runs in the pty; results go to a file, since the terminal may be stopped.
cat >"$dir/inner.sh" <<EOF
exec 9>"$dir/result"
stty rows 33 cols 77
echo "before \$($PY $dir/state.py)" >&9
"\$@" 2>"$dir/attack.err"
echo "status \$?" >&9
echo "after \$($PY $dir/state.py)" >&9
timeout 3 sh -c 'echo probe'
echo "write \$?" >&9
$PY $dir/undo.py
stty sane
EOF

# attack_under_script LABEL CMD...: leaves $before, $after, $write, $status.
attack_under_script() {
    label=$1
    shift
    rm -f "$dir/result"
    timeout -k 2 40 script -qec "sh $dir/inner.sh $*" /dev/null </dev/null >"$dir/typescript"
    before=$(sed -n 's/^before //p' "$dir/result")
    after=$(sed -n 's/^after //p' "$dir/result")
    write=$(sed -n 's/^write //p' "$dir/result")
    status=$(sed -n 's/^status //p' "$dir/result")
    expect_contains "$before" "size=33x77 excl=0 nonblock=0" "$label: the terminal before"
    expect_contains "$(cat "$dir/attack.err")" attacked "$label: the attack ran"
}

# ---- control: done directly, every change sticks and the next write blocks
attack_under_script "control" "$PY" "$dir/attack.py"
expect_contains "$after" "size=11x22 excl=1 nonblock=1" "control: the changes stick"
[ "$after" != "$before" ] && ok || bad "control: termios unchanged ($after)"
expect_eq_write() { if [ "$write" = "$1" ]; then ok; else bad "$2: write status '$write'"; fi; }
# Blocked (124), or EAGAIN (1) as fd 1 shares fd 0's now non-blocking description.
[ -n "$write" ] && [ "$write" != 0 ] && ok || bad "control: TCOOFF: the next write succeeded"

# ---- through sbx run: the host's terminal is untouched
attack_under_script "sbx run" "$SBX" run --fs "$dir::/t" -- "$PY" /t/attack.py
if [ "$status" = 0 ]; then ok; else bad "sbx run: the guest's status $status"; fi
if [ "$after" = "$before" ]; then ok; else bad "sbx run: terminal changed: '$before' -> '$after'"; fi
expect_eq_write 0 "sbx run: a later write does not block"

# ---- the guest still has a terminal, with the host's size, and output and input pass
cat >"$dir/show.sh" <<EOF
stty rows 33 cols 77
$SBX run -- $PY -c 'import os, sys; print("isatty", os.isatty(0), os.isatty(1)); print("size", os.get_terminal_size(0)); print("read", sys.stdin.readline().strip())'
EOF
out=$(printf 'typed-line\n' | timeout -k 2 40 script -qec "sh $dir/show.sh" /dev/null)
expect_contains "$out" "isatty True True" "the guest's stdio is a terminal"
expect_contains "$out" "columns=77, lines=33" "the guest gets the host's window size"
expect_contains "$out" "read typed-line" "typed input reaches the guest"

# ---- ^C typed at the host is the guest's SIGINT (the pty is its controlling terminal)
start=$(date +%s)
out=$( (sleep 1; printf '\003') | timeout -k 2 40 script -qec "$SBX run -- sleep 20; echo rc=\$?" /dev/null)
expect_contains "$out" "rc=130" "^C interrupts the guest"
[ $(($(date +%s) - start)) -lt 15 ] && ok || bad "^C: the guest ran on"

# ---- a guest that never reads its terminal cannot hold the relay past the deadline
start=$(date +%s)
out=$(head -c 300000 /dev/zero | tr '\0' 'y' | fold -w 100 |
    timeout -k 2 40 script -qec "$SBX run --timeout-ms 1000 -- sleep 20; echo rc=\$?" /dev/null)
out=$(echo "$out" | tail -c 200)
expect_contains "$out" "rc=124" "a guest ignoring 300 KB of input still times out"
[ $(($(date +%s) - start)) -lt 15 ] && ok || bad "input flood: the run outlived its deadline"

# ---- in the background (job control), the guest reads EOF and the typed line stays the shell's
cat >"$dir/bg.sh" <<EOF
set -m
$SBX run -- $PY -c 'import sys; print("bg read", repr(sys.stdin.read()))' &
wait
read line
echo "fg read \$line"
EOF
out=$(printf 'typed\n' | timeout -k 2 40 script -qec "sh $dir/bg.sh" /dev/null)
expect_contains "$out" "bg read ''" "a background run reads EOF"
expect_contains "$out" "fg read typed" "the foreground keeps what was typed"

# ---- a resize of the host's terminal reaches the guest (SIGWINCH relayed). The size is read at
# the end, not in the handler: a pty's master sends SIGWINCH before it stores the slave's new size,
# so a handler that runs at once can read the size before (seen in CI under load).
cat >"$dir/winch.sh" <<EOF
stty rows 33 cols 77
(sleep 1; stty rows 40 cols 90 </dev/tty) &
$SBX run -- $PY -c 'import os, signal, time; seen = []; signal.signal(signal.SIGWINCH, lambda *a: seen.append(1)); time.sleep(3); print("winch", len(seen) > 0, os.get_terminal_size(0))'
EOF
out=$(timeout -k 2 40 script -qec "sh $dir/winch.sh" /dev/null </dev/null)
expect_contains "$out" "winch True os.terminal_size(columns=90, lines=40)" "the guest follows a resize"

# ---- input at its end before the run: script(1) types its EOF (^D) at once, which the host's
# cooked terminal holds as a pending end of line; going raw must not turn it into a NUL byte
# that the guest's pty echoes as "^@" (#23 item 6). The control: the same command without sbx.
out=$(timeout -k 2 40 script -qec "/bin/echo hi" /dev/null </dev/null | od -An -c | tr -s ' ')
[ "$out" = " h i \r \n" ] && ok || bad "control: echo under script gave '$out'"
for i in 1 2 3; do
    out=$(timeout -k 2 40 script -qec "$SBX run -- /bin/echo hi" /dev/null </dev/null |
        od -An -c | tr -s ' ')
    [ "$out" = " h i \r \n" ] && ok || bad "sbx run under script at EOF gave '$out' (run $i)"
done
reader="$SBX run -- $PY -c 'import sys; print(repr(sys.stdin.read()))'"
out=$(timeout -k 2 40 script -qec "$reader" /dev/null </dev/null)
expect_contains "$out" "''" "a guest reading a terminal at its end reads EOF"
out=$( (sleep 1) | timeout -k 2 40 script -qec "$reader" /dev/null | od -An -c | tr -s ' ')
[ "$out" = " ' ' \r \n" ] && ok || bad "an end of input typed during the run gave '$out'"

# ---- a non-terminal fd shared with the guest gets its status flags back
cat >"$dir/flags.sh" <<EOF
exec 3>>"$dir/shared"
grep flags /proc/\$\$/fdinfo/3
$SBX run -- $PY -c 'import fcntl, os; fcntl.fcntl(1, fcntl.F_SETFL, os.O_NONBLOCK)' >&3
grep flags /proc/\$\$/fdinfo/3
EOF
out=$(timeout -k 2 20 sh "$dir/flags.sh")
first=$(echo "$out" | sed -n 1p)
second=$(echo "$out" | sed -n 2p)
if [ -n "$first" ] && [ "$first" = "$second" ]; then ok; else bad "fd flags: '$first' -> '$second'"; fi
# Control: without sbx the flags (O_NONBLOCK set, O_APPEND cleared) do change.
sed -i "s|^$SBX run -- |exec_direct=1; |" "$dir/flags.sh"
out=$(timeout -k 2 20 sh "$dir/flags.sh")
if [ "$(echo "$out" | sed -n 1p)" != "$(echo "$out" | sed -n 2p)" ]; then ok; else
    bad "control: fd flags did not change: $out"
fi
finish
