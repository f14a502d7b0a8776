#!/bin/sh
# bench/wasm/real/table.sh COLUMN TITLE <results: the median per (program, runner) of the results'
# COLUMN (3 = CPU s, 4 = wall s), its ratio to native, and the geomean of the ratios per runner;
# then sbxw and the sbxdN against node (those of them in RUNNERS). A run that failed or timed out
# is a line with the word in place of its times: a pair with no successful run shows that word in
# its cell. The median of an even count is the lower middle value. RUNNERS and REPS: run.sh.
echo
echo "$2 (median of $REPS; x = ratio to native)"
sort -k1,1 -k2,2 -k"$1","$1"g | awk -v c="$1" -v runners="$RUNNERS" '
{
    if ($c ~ /^[0-9.]+$/) v[$1 " " $2, ++n[$1 " " $2]] = $c; else bad[$1 " " $2] = $c
    if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 }
}
END {
    nr = split(runners, R, " ")
    for (j = 1; j <= nr; j++) if (R[j] ~ /^(sbxw|sbxd[1-9])$/) N[++nn] = R[j]
    printf "%-8s", "program"
    for (j = 1; j <= nr; j++) printf " %9s %6s", R[j], "x"
    for (j = 1; j <= nn; j++) printf " %11s", N[j] "/node"
    printf "\n"
    for (i = 1; i <= np; i++) {
        p = order[i]
        printf "%-8s", p
        nat = 0
        for (j = 1; j <= nr; j++) {
            k = p " " R[j]
            m = n[k] ? v[k, int((n[k] + 1) / 2)] : 0
            med[R[j]] = m
            if (R[j] == "native") nat = m
            x = (nat > 0 && m > 0) ? m / nat : 0
            if (n[k]) printf " %9.3f %6.2f", m, x
            else printf " %9s %6s", (k in bad) ? bad[k] : "-", "-"
            if (x > 0) { lg[R[j]] += log(x); cnt[R[j]]++ }
        }
        for (j = 1; j <= nn; j++) {
            wn = (med["node"] > 0) ? med[N[j]] / med["node"] : 0
            if (wn > 0) { lwn[N[j]] += log(wn); cwn[N[j]]++; printf " %11.2f", wn }
            else printf " %11s", "-"
        }
        printf "\n"
    }
    printf "%-8s", "geomean"
    for (j = 1; j <= nr; j++)
        printf " %9s %6s", "", cnt[R[j]] ? sprintf("%.2f", exp(lg[R[j]] / cnt[R[j]])) : "-"
    for (j = 1; j <= nn; j++)
        printf " %11s", cwn[N[j]] ? sprintf("%.2f", exp(lwn[N[j]] / cwn[N[j]])) : "-"
    printf "\n"
}'
