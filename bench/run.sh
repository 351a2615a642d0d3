#!/usr/bin/env bash
# bench/run.sh — time agentv-review against AgentV 4.42.4 and plain Unix tools
# on the same synthetic runs (written by bench/gen, cached between calls).
#
#   bench/run.sh [--cache DIR] [--sizes "1000 10000 100000 1000000"] [--layouts "442 v5 flat"]
#                [--repeat N] [--agentv-timeout SECS]
#
# For each generated run (every size in every layout) it times (median of
# --repeat, wall clock; the highest peak RSS from /usr/bin/time): agentv-review status
# --json, list --json and show --json of the middle case (by its ref, as list
# prints it, and by its position #N), each once a round in turn so that the
# ratios between them meet the same load, `agentv results
# summary` (AgentV 4.42.4; reads only the 4.42.4 layout), jq selecting
# failures from the manifest, and wc -l on the manifest. For the 442 runs of
# at most 100k rows it then reviews the run: apply of one agent answer per
# case (the feedback file apply writes), status --json of the reviewed run
# (in turn with status --json of the run without it, its ratio's reference),
# and validate of that file, beside wc -l on it. Then it checks the targets:
# status >= 50x faster than agentv results summary and <= 3x wc -l at 100k
# rows; list <= 1.5x status and show <= 0.5x status; peak RSS of status,
# list and show <= 64 MiB; 1M rows taking <= 11x the 100k time; --help <
# 10 ms; reviewed status <= 1.5x status and <= 64 MiB, validate <= 2 s,
# apply <= 3 s and apply growing <= 11x from 10k to 100k rows. It prints the
# load average before and after: quote it with the figures.
#
# Runs live in $CACHE/runs-<tree hash of bench/gen>/ (regenerated when the
# generator changes; a 1M-row run is about 5 GB). The default cache is
# ${XDG_CACHE_HOME:-~/.cache}/agentv-review-bench-sh.
set -euo pipefail

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }

die() { echo "bench/run.sh: $*" >&2; exit 1; }

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/agentv-review-bench-sh"
SIZES="1000 10000 100000 1000000"
LAYOUTS="442 v5 flat"
REPEAT=3
AGENTV_TIMEOUT=300
while [ $# -gt 0 ]; do
	case "$1" in
	--layouts) [ $# -ge 2 ] || die "--layouts needs a list, e.g. \"442 flat\""; LAYOUTS="$2"; shift ;;
	--cache) [ $# -ge 2 ] || die "--cache needs a folder"; CACHE="$2"; shift ;;
	--sizes) [ $# -ge 2 ] || die "--sizes needs a list, e.g. \"1000 10000\""; SIZES="$2"; shift ;;
	--repeat) [ $# -ge 2 ] || die "--repeat needs a number"; REPEAT="$2"; shift ;;
	--agentv-timeout) [ $# -ge 2 ] || die "--agentv-timeout needs seconds"; AGENTV_TIMEOUT="$2"; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
	shift
done
case "$REPEAT" in '' | *[!0-9]* | 0) die "--repeat must be a positive number, got '$REPEAT'" ;; esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"

for tool in go jq wc awk; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (peak RSS needs GNU time): apt-get install -y time"

# --- build ------------------------------------------------------------------
echo "building bench/gen and agentv-review into $CACHE ..."
go build -o "$CACHE/gen" ./bench/gen || die "cannot build ./bench/gen"
BIN="$CACHE/agentv-review"
if ! go build -o "$BIN" ./plugin/cmd/agentv-review; then
	echo "bench/run.sh: cannot build ./plugin/cmd/agentv-review: agentv-review columns skipped" >&2
	BIN=""
fi

# --- AgentV 4.42.4 ----------------------------------------------------------
AGENTV="$CACHE/agentv/node_modules/.bin/agentv"
if [ ! -x "$AGENTV" ]; then
	if command -v npm >/dev/null &&
		timeout 300 npm install --no-audit --no-fund --prefix "$CACHE/agentv" agentv@4.42.4 >"$CACHE/npm-install.log" 2>&1; then
		echo "installed agentv@4.42.4 into $CACHE/agentv"
	else
		echo "bench/run.sh: npm could not install agentv@4.42.4 (see $CACHE/npm-install.log): agentv column skipped" >&2
		AGENTV=""
	fi
fi

# --- runs -------------------------------------------------------------------
GEN_KEY="$(git rev-parse --short HEAD:bench/gen 2>/dev/null || echo dev)"
if [ -n "$(git status --porcelain -- bench/gen 2>/dev/null)" ]; then GEN_KEY="$GEN_KEY-dirty"; fi
RUNS="$CACHE/runs-$GEN_KEY"
RUN_ID="2026-07-06T11-31-36-988Z"

# gen NAME ARGS... writes $RUNS/NAME unless a finished copy (gen.json) is there.
gen() {
	local name="$1"
	shift
	local dir="$RUNS/$name"
	if [ -s "$dir/gen.json" ]; then return; fi
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "generating $name ..."
	local t0=$EPOCHREALTIME
	"$CACHE/gen" "$@" >"$dir/gen.tmp" || die "generating $name failed"
	jq -c --argjson wall "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}')" '. + {wall_seconds: $wall}' \
		"$dir/gen.tmp" >"$dir/gen.json"
	rm -f "$dir/gen.tmp"
}

NAMES=()
for n in $SIZES; do
	case "$n" in '' | *[!0-9]*) die "--sizes: '$n' is not a number" ;; esac
	for layout in $LAYOUTS; do
		case "$layout" in
		442 | v5) out="$RUNS/$layout-$n/$RUN_ID" ;;
		flat) out="$RUNS/$layout-$n/eval_$RUN_ID.jsonl" ;;
		*) die "--layouts: '$layout' is not 442, v5 or flat" ;;
		esac
		gen "$layout-$n" -layout "$layout" -rows "$n" -seed 1 -big-answers 3 -flat-size 0 -out "$out"
		NAMES+=("$layout-$n")
	done
done

# --- timing -----------------------------------------------------------------
# once LIMIT CMD... runs CMD once (stdout discarded) and sets ONE_MS (its
# wall time, ms), ONE_KB (its peak RSS) and ONE_RC (its exit code; 124 when
# LIMIT, seconds, 0 = none, stopped it). A failure is told on stderr.
once() {
	local limit="$1" t0 out="$CACHE/time.out"
	shift
	t0=$EPOCHREALTIME
	ONE_RC=0 ONE_KB=""
	if [ "$limit" -gt 0 ]; then
		timeout "$limit" /usr/bin/time -f "%M" -o "$out" "$@" >/dev/null 2>"$CACHE/cmd.err" || ONE_RC=$?
	else
		/usr/bin/time -f "%M" -o "$out" "$@" >/dev/null 2>"$CACHE/cmd.err" || ONE_RC=$?
	fi
	ONE_MS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", (b-a)*1000}')
	case "$ONE_RC" in
	0) ONE_KB=$(tail -1 "$out") ;;
	124) ;;
	*) echo "bench/run.sh: '$*' exited $ONE_RC: $(head -c 300 "$CACHE/cmd.err")" >&2 ;;
	esac
}

# median TIMES... prints the median (on a shared machine one lucky run
# moves a minimum by a quarter).
median() {
	printf '%s\n' "$@" | sort -g | awk '{t[NR]=$1} END{printf "%.1f", NR%2 ? t[(NR+1)/2] : (t[NR/2]+t[NR/2+1])/2}'
}

# measure LIMIT CMD... runs CMD up to $REPEAT times and sets MED_MS (the
# median wall time, ms) and PEAK_KB (the highest peak RSS of the runs). A
# run slower than 60 s is not repeated; LIMIT (see once) stopping a run
# sets TIMED_OUT=1 (MED_MS is then a lower bound).
measure() {
	local limit="$1" i times=()
	shift
	MED_MS="" PEAK_KB="" TIMED_OUT=0
	for ((i = 0; i < REPEAT; i++)); do
		once "$limit" "$@"
		case "$ONE_RC" in
		0) ;;
		124) TIMED_OUT=1 MED_MS=$ONE_MS PEAK_KB="" && return ;;
		*) MED_MS="err" PEAK_KB="" && return ;;
		esac
		if [ -z "$PEAK_KB" ] || [ "$ONE_KB" -gt "$PEAK_KB" ]; then PEAK_KB=$ONE_KB; fi
		times+=("$ONE_MS")
		if awk -v a="$ONE_MS" 'BEGIN{exit !(a>60000)}'; then break; fi
	done
	MED_MS=$(median "${times[@]}")
}

# rounds NAME=CMD... runs each command once a round, in turn, for $REPEAT
# rounds, and sets RMS[NAME] (median wall ms, or "err") and RKB[NAME]
# (highest peak RSS): the commands whose times are compared as ratios
# (status and list, show, reviewed status) then meet the same minutes of a
# shared machine's load, instead of one command's runs meeting a busy
# spell and another's a quiet one. Each CMD is a string for eval (see q).
declare -A RMS RKB
rounds() {
	local i pair name
	local -A times=()
	RMS=() RKB=()
	for ((i = 0; i < REPEAT; i++)); do
		for pair in "$@"; do
			name=${pair%%=*}
			[ "${RMS[$name]:-}" = err ] && continue
			eval "once 0 ${pair#*=}"
			if [ "$ONE_RC" != 0 ]; then
				RMS[$name]=err
				continue
			fi
			if [ -z "${RKB[$name]:-}" ] || [ "$ONE_KB" -gt "${RKB[$name]}" ]; then RKB[$name]=$ONE_KB; fi
			times[$name]+="$ONE_MS "
		done
	done
	for pair in "$@"; do
		name=${pair%%=*}
		[ "${RMS[$name]:-}" = err ] && continue
		# shellcheck disable=SC2086 # the times are split on purpose
		RMS[$name]=$(median ${times[$name]})
	done
}

# q quotes its arguments for rounds' eval.
q() { printf '%q ' "$@"; }

fmt_ms() { # ms [kb] [timed_out] -> "123.4 ms (12 MiB)"
	case "$1" in
	"" | err | -) printf '%s' "${1:--}" ;;
	*)
		if [ "${3:-0}" = 1 ]; then printf '>%s s' "$(awk -v m="$1" 'BEGIN{printf "%.0f", m/1000}')"; else printf '%s ms' "$1"; fi
		if [ -n "${2:-}" ]; then printf ' (%s MiB)' "$(awk -v k="$2" 'BEGIN{printf "%.0f", k/1024}')"; fi
		;;
	esac
}

ratio() { # a b -> a/b with two decimals (the targets are checked on them, not on a rounder figure), or -
	case "$1$2" in *err* | *-*) echo - ;; *) [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}' || echo - ;; esac
}

FAILS=0
check() { # label ok(0/1) detail
	if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  MISS  $1: $3"; FAILS=$((FAILS + 1)); fi
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-13s %8s %10s %8s | %-20s %-20s %-20s %-11s %-22s %-12s %-10s | %9s %9s %8s %8s %8s\n' \
	run rows manifest gen status list "show REF" "show #N" "agentv summary" jq "wc -l" status/wc agentv/st list/st show/st "#N/st"
RESULTS=()
for name in "${NAMES[@]}"; do
	dir="$RUNS/$name"
	manifest=$(jq -r .manifest "$dir/gen.json")
	rows=$(jq -r .rows "$dir/gen.json")
	gen_s=$(jq -r '.wall_seconds' "$dir/gen.json")
	mb=$(awk -v b="$(jq -r .manifest_bytes "$dir/gen.json")" 'BEGIN{printf "%.1f MB", b/1e6}')
	target="$dir/$RUN_ID"
	[ "${name%%-*}" = flat ] && target="$manifest"

	st_ms=- st_kb="" li_ms=- li_kb="" sh_ms=- sh_kb="" sn_ms=- av_ms=- av_kb="" av_to=0 jq_ms=-
	if [ -n "$BIN" ]; then
		middle="#$(($(jq -r .cases "$dir/gen.json") / 2))"
		# the same case by its ref, as list prints it
		ref=$("$BIN" show --json "$target" "$middle" 2>/dev/null | jq -r .ref)
		rounds "st=$(q "$BIN" status --json "$target")" "li=$(q "$BIN" list --json "$target")" \
			"sn=$(q "$BIN" show --json "$target" "$middle")" "sh=$(q "$BIN" show --json "$target" "$ref")"
		st_ms=${RMS[st]} st_kb=${RKB[st]:-} li_ms=${RMS[li]} li_kb=${RKB[li]:-}
		sn_ms=${RMS[sn]} sh_ms=${RMS[sh]} sh_kb=${RKB[sh]:-}
	fi
	if [ -n "$AGENTV" ] && [ "${name%%-*}" = 442 ]; then
		measure "$AGENTV_TIMEOUT" "$AGENTV" results summary "$target"
		av_ms=$MED_MS av_kb=$PEAK_KB av_to=$TIMED_OUT
	fi
	if [ "$rows" -le 100000 ]; then # jq reads about 50 MB/s: not for 5 GB
		measure 0 jq -c 'select(.execution_status != "ok")' "$manifest"
		jq_ms=$MED_MS
	fi
	measure 0 wc -l "$manifest"
	wc_ms=$MED_MS

	st_wc=$(ratio "$st_ms" "$wc_ms")
	av_st=$(ratio "$av_ms" "$st_ms")
	[ "$av_to" = 1 ] && av_st=">$av_st"
	li_st=$(ratio "$li_ms" "$st_ms")
	sh_st=$(ratio "$sh_ms" "$st_ms")
	sn_st=$(ratio "$sn_ms" "$st_ms")
	printf '%-13s %8s %10s %7ss | %-20s %-20s %-20s %-11s %-22s %-12s %-10s | %9s %9s %8s %8s %8s\n' \
		"$name" "$rows" "$mb" "$gen_s" "$(fmt_ms "$st_ms" "$st_kb")" "$(fmt_ms "$li_ms" "$li_kb")" "$(fmt_ms "$sh_ms" "$sh_kb")" "$(fmt_ms "$sn_ms")" \
		"$(fmt_ms "$av_ms" "$av_kb" "$av_to")" "$(fmt_ms "$jq_ms")" "$(fmt_ms "$wc_ms")" "$st_wc" "$av_st" "$li_st" "$sh_st" "$sn_st"
	RESULTS+=("$name|$rows|$st_ms|$st_kb|$li_ms|$li_kb|$sh_ms|$sh_kb|$st_wc|$av_st|$li_st|$sh_st")
done
echo "(agentv summary: 4.42.4 reads only the 442 layout; '>N s' = stopped after --agentv-timeout, the ratio is then a lower bound)"

# --- reviewed runs ------------------------------------------------------------
# apply writes the feedback file of one agent answer per case into
# $RUNS/NAME/review/ (kept, so status and validate read what apply wrote).
REVIEWED=()
if [ -n "$BIN" ]; then
	printf '\n%-12s %8s | %-22s %-22s %-22s %-12s | %9s\n' run answers apply "status (reviewed)" validate "wc -l fb" "rev/st"
	for r in "${RESULTS[@]}"; do
		IFS='|' read -r name rows st_ms _ <<<"$r"
		[ "${name%%-*}" = 442 ] && [ "$rows" -le 100000 ] || continue
		dir="$RUNS/$name"
		target="$dir/$RUN_ID"
		if [ ! -s "$dir/answers.jsonl" ]; then
			jq -c '{test_id, suite, target}' "$target/index.jsonl" | awk '!seen[$0]++ { sub(/}$/, ",\"verdict\":\"acceptable\"}"); print }' >"$dir/answers.tmp"
			mv "$dir/answers.tmp" "$dir/answers.jsonl"
		fi
		answers=$(wc -l <"$dir/answers.jsonl")
		fb="$dir/review/feedback.json"
		measure 0 sh -c 'rm -rf "$1" && mkdir -p "$1" && exec "$2" apply --agent --from "$3" --out "$1/feedback.json" "$4"' sh "$dir/review" "$BIN" "$dir/answers.jsonl" "$target"
		ap_ms=$MED_MS ap_kb=$PEAK_KB
		# reviewed status beside status of the same run without feedback, in turn
		rounds "st=$(q "$BIN" status --json "$target")" "rs=$(q "$BIN" status --json --out "$fb" "$target")"
		rs_ms=${RMS[rs]} rs_kb=${RKB[rs]:-}
		rev_st=$(ratio "$rs_ms" "${RMS[st]}")
		measure 0 "$BIN" validate "$fb"
		va_ms=$MED_MS va_kb=$PEAK_KB
		measure 0 wc -l "$fb"
		fbwc_ms=$MED_MS
		printf '%-12s %8s | %-22s %-22s %-22s %-12s | %9s\n' "$name" "$answers" "$(fmt_ms "$ap_ms" "$ap_kb")" \
			"$(fmt_ms "$rs_ms" "$rs_kb")" "$(fmt_ms "$va_ms" "$va_kb")" "$(fmt_ms "$fbwc_ms")" "$rev_st"
		REVIEWED+=("$name|$ap_ms|$rs_kb|$va_ms|$rev_st")
	done
fi

echo
echo "targets:"
if [ -n "$BIN" ]; then
	measure 0 "$BIN" --help
	help_ms=$MED_MS
	check "agentv-review --help < 10 ms" "$(awk -v m="$help_ms" 'BEGIN{print (m<10)?1:0}')" "$help_ms ms"
fi
le() { awk -v a="$1" -v b="$2" 'BEGIN{print (a<=b)?1:0}'; } # a <= b -> 1/0
mib() { awk -v k="$1" 'BEGIN{printf "%.1f MiB", k/1024}'; }
for r in "${RESULTS[@]}"; do
	IFS='|' read -r name rows st_ms st_kb li_ms li_kb sh_ms sh_kb st_wc av_st li_st sh_st <<<"$r"
	[ -n "$BIN" ] || continue
	for pair in "status:$st_kb" "list:$li_kb" "show:$sh_kb"; do
		kb=${pair#*:}
		[ -n "$kb" ] && check "$name ${pair%%:*} peak RSS <= 64 MiB" "$(le "$kb" 65536)" "$(mib "$kb")"
	done
	if [ "$rows" = 100000 ]; then
		[ "$st_wc" != - ] && check "$name status <= 3x wc -l" "$(le "$st_wc" 3)" "${st_wc}x"
		if [ "$av_st" != - ]; then
			check "$name status >= 50x faster than agentv results summary" "$(le 50 "${av_st#>}")" "${av_st}x"
		fi
	fi
	[ "$li_st" != - ] && check "$name list <= 1.5x status" "$(le "$li_st" 1.5)" "${li_st}x"
	[ "$sh_st" != - ] && check "$name show <= 0.5x status" "$(le "$sh_st" 0.5)" "${sh_st}x"
	if [ "$rows" = 1000000 ]; then # against the same layout at 100k rows
		for r100 in "${RESULTS[@]}"; do
			IFS='|' read -r n100 rows100 st100 _ li100 _ sh100 _ <<<"$r100"
			[ "$n100" = "${name%%-*}-100000" ] || continue
			for pair in "status:$st_ms:$st100" "list:$li_ms:$li100" "show:$sh_ms:$sh100"; do
				IFS=: read -r what big small <<<"$pair"
				g=$(ratio "$big" "$small")
				[ "$g" != - ] && check "$name $what <= 11x the 100k time" "$(le "$g" 11)" "${g}x"
			done
		done
	fi
done
apply_10k="" apply_100k=""
for r in "${REVIEWED[@]}"; do
	IFS='|' read -r name ap_ms rs_kb va_ms rev_st <<<"$r"
	[ "$name" = 442-10000 ] && apply_10k=$ap_ms
	[ "$name" = 442-100000 ] && apply_100k=$ap_ms
	[ "$rev_st" != - ] && check "$name reviewed status <= 1.5x status" "$(awk -v r="$rev_st" 'BEGIN{print (r<=1.5)?1:0}')" "${rev_st}x"
	[ -n "$rs_kb" ] && check "$name reviewed status peak RSS <= 64 MiB" "$(le "$rs_kb" 65536)" "$(mib "$rs_kb")"
	case "$va_ms" in err | "") ;; *) check "$name validate <= 2 s" "$(awk -v m="$va_ms" 'BEGIN{print (m<=2000)?1:0}')" "$va_ms ms" ;; esac
	case "$ap_ms" in err | "") ;; *) check "$name apply <= 3 s" "$(awk -v m="$ap_ms" 'BEGIN{print (m<=3000)?1:0}')" "$ap_ms ms" ;; esac
done
if [ -n "$apply_10k" ] && [ -n "$apply_100k" ]; then
	growth=$(ratio "$apply_100k" "$apply_10k")
	[ "$growth" != - ] && check "apply grows <= 11x from 10k to 100k rows" "$(awk -v r="$growth" 'BEGIN{print (r<=11)?1:0}')" "${growth}x"
fi
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$FAILS target(s) missed. Runs: $RUNS"
