#!/bin/bash
# The base of a pull request rendered as it is deployed (pull-request.yml, render-diff), run in a
# checkout of the base branch, for every Pulumi.<stack>.yaml there:
#
#   render-base.sh outputs DIR   the deployed stack's outputs, `pulumi stack output --json`, into
#                                DIR/deployed-<stack>.json; needs the Pulumi CLI logged in (the
#                                workflow gives PULUMI_ACCESS_TOKEN to this step only). A stack that
#                                cannot be read (no CLI, no token, never deployed) gets a note in
#                                DIR/base-<stack>.note instead.
#   render-base.sh render DIR    `npm run plan` of each stack into DIR/base/<stack>/, with
#                                --previous DIR/deployed-<stack>.json when there is one (the
#                                deployed DHCP slots and slot count, not a first run's), and its
#                                outputs into DIR/base-<stack>.json (the head's --previous). Outputs
#                                the plan refuses fall back to a first run, with a note.
#
# DIR/base-<stack>.note: one line for the report, saying how the base was rendered.
set -euo pipefail
mode=${1:-}
dir=${2:-}
if [[ -z $dir || ($mode != outputs && $mode != render) ]]; then
    echo "usage: render-base.sh outputs|render DIR" >&2
    exit 2
fi
mkdir -p "$dir/base"

stacks() {
    local file stack
    for file in Pulumi.*.yaml; do
        [[ -f $file ]] || continue
        stack="${file#Pulumi.}"
        printf '%s\n' "${stack%.yaml}"
    done
}

oneline() { tr -s '\n\t' '  ' <<< "$1" | cut -c1-300; }

first_run() { printf 'base rendered as a first run: %s (DHCP slots and counts are a first run'"'"'s, not necessarily the deployed ones)\n' "$1"; }

if [[ $mode == outputs ]]; then
    while read -r stack; do
        rm -f "$dir/deployed-$stack.json" "$dir/base-$stack.note"
        if ! command -v pulumi > /dev/null; then
            first_run "no Pulumi CLI to read the deployed outputs (repository secret PULUMI_ACCESS_TOKEN not available)" > "$dir/base-$stack.note"
        elif err=$(pulumi stack output --json --non-interactive --stack "$stack" 2>&1 > "$dir/deployed-$stack.json.tmp"); then
            mv "$dir/deployed-$stack.json.tmp" "$dir/deployed-$stack.json"
        else
            rm -f "$dir/deployed-$stack.json.tmp"
            first_run "pulumi stack output --stack $stack: $(oneline "$err")" > "$dir/base-$stack.note"
        fi
    done < <(stacks)
    exit 0
fi

while read -r stack; do
    render=(npm run --silent plan -- --stack "$stack" --out "$dir/base/$stack" --write-outputs "$dir/base-$stack.json")
    deployed="$dir/deployed-$stack.json"
    if [[ -f $deployed ]]; then
        if err=$("${render[@]}" --previous "$deployed" 2>&1 > /dev/null); then
            echo "base rendered as deployed: the outputs of stack $stack (pulumi stack output --json) as --previous" > "$dir/base-$stack.note"
            continue
        fi
        first_run "the deployed outputs of stack $stack were refused: $(oneline "$err")" > "$dir/base-$stack.note"
    fi
    [[ -f $dir/base-$stack.note ]] || first_run "no deployed outputs of stack $stack" > "$dir/base-$stack.note"
    "${render[@]}" > /dev/null || { echo "base: $stack does not render" >&2; rm -f "$dir/base-$stack.json"; }
done < <(stacks)
