# Sourced by the *_same.sh scripts: `same_answers BIN BASE WORDS` reads one argument
# list per line on stdin and runs `BIN WORDS ARGS` and `BASE WORDS ARGS` (eval'd, so
# quotes and $VARS work), printing `same` or `DIFF` per line; returns 1 on any DIFF.
same_answers() {
  local bin=$1 base=$2 words=$3 fail=0 args a b
  while IFS= read -r args; do
    a=$(eval "$bin $words $args" 2>&1; echo "rc=$?")
    b=$(eval "$base $words $args" 2>&1; echo "rc=$?")
    if [ "$a" != "$b" ]; then echo "DIFF: $args"; fail=1; else echo "same ($(echo -n "$a" | wc -c) B, ${a##*rc=}): $args"; fi
  done
  return $fail
}
