#!/bin/bash
# The stacks the workflows deploy (deploy.yml) and preview (pull-request.yml), in promotion order:
# those of DEPLOY_ORDER (below; edit it in a pull request) that have a Pulumi.<stack>.yaml in the
# current directory. Prints `list=["dev",...]` for $GITHUB_OUTPUT, and a notice per skipped name.
set -euo pipefail
DEPLOY_ORDER=${DEPLOY_ORDER:-dev staging prod}
json=""
for s in $DEPLOY_ORDER; do
    if [[ -f "Pulumi.$s.yaml" ]]; then
        json="$json\"$s\","
    else
        echo "::notice::no Pulumi.$s.yaml: stack $s is not deployed" >&2
    fi
done
echo "list=[${json%,}]"
