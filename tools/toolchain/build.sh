#!/usr/bin/env bash
# Builds the local-cluster toolchain from the Go module proxy, by module path and pinned version
# (tools/toolchain/versions.env): etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, kwok, the Pulumi CLI, its Node.js language host, the Kubernetes provider plugin, the
# Terraform-bridged tls and random provider plugins, and baremetal-operator with its release's config.
# Only small wrapper modules written here are ours; no source of those projects is kept in this
# repository. Builds go into a cache outside the repository, keyed by the hash of versions.env
# (bump TOOLCHAIN_REVISION there when this recipe changes what it builds), reused when present. Prints the bin directory as the last line on stdout;
# everything else goes to stderr.
#
#   tools/toolchain/build.sh [target ...]   targets: etcd k8s bmo pulumi language-nodejs kubernetes tls random
#                                           (default: all)
#   tools/toolchain/build.sh --versions     print the versions of the built programs
#
# METAL3_TOOLCHAIN_CACHE overrides the cache directory (default /var/cache/metal3-ironic-toolchain).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

cache=${METAL3_TOOLCHAIN_CACHE:-/var/cache/metal3-ironic-toolchain}
key=$(sha256sum <"$here/versions.env" | cut -c1-16)
out=$cache/$key
bin=$out/bin
mkdir -p "$bin" "$out/work"

# No DWARF: compiling without it is ~10 % faster (etcd cold, 2 cores: 39 s against 43 s) and these
# binaries are run, never debugged; every link below adds -s -w for the same reason (kube-apiserver
# links in 4 s instead of 10). The toolchain is the longest step of CI on a fresh machine.
export GOMODCACHE=$cache/gomod GOCACHE=$cache/gocache GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS="-mod=mod -gcflags=all=-dwarf=false"
# The compiler collects garbage less often (GOGC 400, not 100): the cold k8s build took 468 CPU-s
# against 534 (wall 241 s against 274; its largest compile 541 MB against 469 MB), etcd 69 against
# 80; the binaries are byte-identical. Go is a third of CI's CPU on a fresh machine (stop 61).
export GOGC=400
strip="-s -w"

log() { printf '[toolchain] %s\n' "$*" >&2; }

versions() {
  "$bin/etcd" --version | head -1
  "$bin/kube-apiserver" --version
  "$bin/kubectl" version --client 2>/dev/null | head -1
  "$bin/kwok" --version 2>/dev/null | head -1 || echo "kwok $KWOK_VERSION"
  echo "pulumi $("$bin/pulumi" version)"
  echo "pulumi-language-nodejs $LANGUAGE_NODEJS_SDK_VERSION (sdk/v3, nearest served)"
  echo "pulumi-resource-kubernetes $KUBERNETES_PROVIDER_VERSION ($KUBERNETES_PROVIDER_MODULE_VERSION)"
  echo "pulumi-resource-tls $("$bin/pulumi-resource-tls" -version) ($TLS_UPSTREAM_MODULE@$TLS_UPSTREAM_VERSION, bridge $TF_BRIDGE_VERSION)"
  echo "pulumi-resource-random $("$bin/pulumi-resource-random" -version) ($RANDOM_UPSTREAM_MODULE@$RANDOM_UPSTREAM_VERSION, bridge $TF_BRIDGE_VERSION)"
  echo "baremetal-operator $BMO_VERSION (apis $BMO_APIS_VERSION, ironic-standalone-operator/api $BMO_IRSO_API_VERSION)"
}

if [[ "${1:-}" == "--versions" ]]; then versions; exit 0; fi

# One wrapper module per target, created fresh each build.
wrapper() {
  local dir=$out/work/$1
  rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
  go mod init "metal3-ironic.local/toolchain/$1" >/dev/null 2>&1
}

build_etcd() {
  wrapper etcd
  go get -tool "$ETCD_MODULE@$ETCD_VERSION" >&2
  go build -trimpath -ldflags "$strip" -o "$bin/etcd" "$ETCD_MODULE"
}

build_k8s() {
  wrapper k8s
  # k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging;
  # a wrapper replaces each with its published version instead.
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  local mods
  mods=$(grep -oE 'k8s\.io/[A-Za-z0-9._-]+ => \./staging' "$gomod" | awk '{print $1}' | sort -u)
  [[ -n "$mods" ]] || { log "no staging replaces found in $gomod"; exit 1; }
  for m in $mods; do go mod edit -replace="$m=$m@$K8S_STAGING_VERSION"; done
  go mod edit -require="k8s.io/kubernetes@$K8S_VERSION"
  local pkgs=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl sigs.k8s.io/kwok/cmd/kwok)
  go get -tool "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" >&2
  for p in "${pkgs[@]:0:4}"; do go get -tool "$p@$K8S_VERSION" >&2; done
  local minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  local ld="" v
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean"
    ld+=" -X $v.buildDate=1970-01-01T00:00:00Z"
  done
  go build -trimpath -ldflags "$strip$ld" -o "$bin/" "${pkgs[@]}"
}

build_pulumi() {
  wrapper pulumi
  go get -tool "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@$PULUMI_VERSION" >&2
  go build -trimpath -tags osusergo,grpcnotrace \
    -ldflags "$strip -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
    -o "$bin/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
}

build_language_nodejs() {
  wrapper language-nodejs
  local pkg=github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs
  go get -tool "$pkg@$LANGUAGE_NODEJS_SDK_VERSION" >&2
  go build -trimpath \
    -ldflags "$strip -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$LANGUAGE_NODEJS_SDK_VERSION" \
    -o "$bin/pulumi-language-nodejs" "$pkg"
}

build_kubernetes() {
  wrapper kubernetes
  # The checksum database answers 404 for the provider's pseudo-version and for several of its
  # github.com/pulumi dependencies (pkg/v3@v3.215.0, cloud-ready-checks@v1.3.0): these modules
  # are taken as the proxy serves them, unverified by the checksum database.
  export GONOSUMDB=github.com/pulumi
  local mod=github.com/pulumi/pulumi-kubernetes/provider/v4
  go mod edit -require="$mod@$KUBERNETES_PROVIDER_MODULE_VERSION"
  local src
  src=$(go mod download -json "$mod@$KUBERNETES_PROVIDER_MODULE_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
  # The upstream main embeds files its release build generates (gitignored, so not in the module):
  # the schema with its version set, and the terraform mapping. Ours prepares them from the
  # module's committed schema.json / terraform-mapping.json and serves the same way.
  node -e '
    const fs = require("fs");
    const [src, version] = process.argv.slice(1);
    const s = JSON.parse(fs.readFileSync(src + "/cmd/pulumi-resource-kubernetes/schema.json", "utf8"));
    s.version = version;
    fs.writeFileSync("schema-embed.json", JSON.stringify(s));
    const m = JSON.parse(fs.readFileSync(src + "/cmd/pulumi-resource-kubernetes/terraform-mapping.json", "utf8"));
    fs.writeFileSync("terraform-mapping-embed.json", JSON.stringify(m));
  ' "$src" "$KUBERNETES_PROVIDER_VERSION"
  cat > main.go <<'GO'
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var schema []byte

//go:embed terraform-mapping-embed.json
var mapping []byte

func main() { provider.Serve("kubernetes", version.Version, schema, mapping) }
GO
  go mod tidy >&2
  go build -trimpath \
    -ldflags "$strip -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$KUBERNETES_PROVIDER_VERSION" \
    -o "$bin/pulumi-resource-kubernetes" .
}

# Terraform-bridged providers (tls, random). The Pulumi provider modules are refused by the proxy,
# so the upstream Terraform (Plugin Framework) provider is wrapped with the Pulumi Terraform bridge
# here. The upstream provider lives in an internal package; Go lets a package import it only from
# under the upstream module path, so a tiny shim module of ours takes the path <upstream>/shim
# and the wrapper replaces it with ./shim. bridged/info.go (ProviderInfo) is written by each target.
bridged_wrapper() {
  local name=$1 upstream=$2 upstream_version=$3
  wrapper "$name"
  mkdir -p shim bridged cmd/tfgen gen
  cat > shim/go.mod <<GO
module $upstream/shim

go 1.25

require $upstream $upstream_version
GO
  cat > shim/shim.go <<GO
// Package shim hands the upstream provider (an internal package) to the bridge.
package shim

import (
	"github.com/hashicorp/terraform-plugin-framework/provider"

	upstream "$upstream/internal/provider"
)

func New() provider.Provider { return upstream.New() }
GO
  go mod edit -require="$upstream/shim@v0.0.0" -replace="$upstream/shim=./shim" \
    -require="$upstream@$upstream_version" \
    -require="github.com/pulumi/pulumi-terraform-bridge/v3@$TF_BRIDGE_VERSION"
  # The bridge replaces terraform-plugin-sdk/v2 with Pulumi's fork; replaces only apply in the main
  # module, so the wrapper repeats the bridge's own replace (same module and version).
  local gomod fork
  gomod=$(go mod download -json "github.com/pulumi/pulumi-terraform-bridge/v3@$TF_BRIDGE_VERSION" |
    sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  fork=$(sed -n 's|^replace github.com/hashicorp/terraform-plugin-sdk/v2 => \(.*\) \(v[^ ]*\)$|\1@\2|p' "$gomod")
  [[ -n "$fork" ]] || { log "no terraform-plugin-sdk/v2 replace in $gomod"; exit 1; }
  log "$name: terraform-plugin-sdk/v2 => $fork"
  go mod edit -replace="github.com/hashicorp/terraform-plugin-sdk/v2=$fork"
}

# Generates the Pulumi schema and bridge metadata with the bridge's tfgen run on our ProviderInfo,
# then builds pulumi-resource-<name> serving them (embedded).
bridged_build() {
  local name=$1 version=$2
  local ld="$strip -X metal3-ironic.local/toolchain/$name/bridged.version=$version"
  cat > cmd/tfgen/main.go <<GO
package main

import (
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfgen"

	"metal3-ironic.local/toolchain/$name/bridged"
)

func main() { tfgen.Main("$name", bridged.Provider(nil)) }
GO
  cat > main.go <<GO
package main

import (
	"context"
	_ "embed"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"

	"metal3-ironic.local/toolchain/$name/bridged"
)

//go:embed gen/schema-embed.json
var schema []byte

//go:embed gen/bridge-metadata.json
var metadata []byte

func main() {
	tfbridge.Main(context.Background(), "$name", bridged.Provider(metadata),
		tfbridge.ProviderMetadata{PackageSchema: schema})
}
GO
  echo '{}' > gen/schema-embed.json; echo '{}' > gen/bridge-metadata.json
  go mod tidy >&2
  go build -trimpath -ldflags "$ld" -o tfgen ./cmd/tfgen
  # Docs and examples come from the upstream repository's Markdown, not needed to serve.
  ./tfgen schema --out gen --skip-docs --skip-examples >&2
  node -e '
    const fs = require("fs");
    const s = JSON.parse(fs.readFileSync("gen/schema.json", "utf8"));
    s.version = process.argv[1];
    fs.writeFileSync("gen/schema-embed.json", JSON.stringify(s));
  ' "$version"
  go build -trimpath -ldflags "$ld" -o "$bin/pulumi-resource-$name" .
}

build_tls() {
  # Unlike kubernetes, no GONOSUMDB: the checksum database knows every module this graph uses.
  bridged_wrapper tls "$TLS_UPSTREAM_MODULE" "$TLS_UPSTREAM_VERSION"
  cat > bridged/info.go <<'GO'
package bridged

import (
	pf "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge/tokens"

	"github.com/hashicorp/terraform-provider-tls/shim"
)

var version string // -ldflags -X

// Provider maps tls_<name> to tls:index/<name>:<Name>, as the @pulumi/tls SDK names them.
func Provider(metadata []byte) tfbridge.ProviderInfo {
	p := tfbridge.ProviderInfo{
		Name:         "tls",
		Version:      version,
		P:            pf.ShimProvider(shim.New()),
		MetadataInfo: tfbridge.NewProviderMetadata(metadata),
		// Runtime behaviour flags the published provider sets.
		EnableZeroDefaultSchemaVersion: true,
		EnableAccurateBridgePreview:    true,
	}
	p.MustComputeTokens(tokens.SingleModule("tls_", "index", tokens.MakeStandard("tls")))
	return p
}
GO
  bridged_build tls "$TLS_PROVIDER_VERSION"
}

build_random() {
  # Unlike kubernetes, no GONOSUMDB: the checksum database knows every module this graph uses.
  bridged_wrapper random "$RANDOM_UPSTREAM_MODULE" "$RANDOM_UPSTREAM_VERSION"
  cat > bridged/info.go <<'GO'
package bridged

import (
	pf "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge/tokens"

	"github.com/terraform-providers/terraform-provider-random/shim"
)

var version string // -ldflags -X

// Provider maps random_<name> to random:index/random<Name>:Random<Name>, as the @pulumi/random SDK
// names them (random_password -> random:index/randomPassword:RandomPassword).
func Provider(metadata []byte) tfbridge.ProviderInfo {
	p := tfbridge.ProviderInfo{
		Name:         "random",
		Version:      version,
		P:            pf.ShimProvider(shim.New()),
		MetadataInfo: tfbridge.NewProviderMetadata(metadata),
		// Runtime behaviour flags the published provider sets.
		EnableAccurateBridgePreview: true,
		EnableRawStateDelta:         true,
	}
	standard := tokens.MakeStandard("random")
	p.MustComputeTokens(tokens.SingleModule("random_", "index",
		func(module, name string) (string, error) { return standard(module, "Random"+name) }))
	return p
}
GO
  bridged_build random "$RANDOM_PROVIDER_VERSION"
}

# baremetal-operator from its module at the pinned release. Its go.mod replaces its apis and
# hardwareutils modules with ./ directories, which apply only when it is the main module: the wrapper
# requires apis at the release's own version instead (hardwareutils v0.5.1, as required, is served)
# and ironic-standalone-operator/api at the nearest served version (versions.env). The release's
# config/ (its CRDs in base/crds/bases, the manager Deployment, RBAC, the kustomize components)
# is copied beside the binary, in bmo-config/: tests deploy BMO the way its release does.
build_bmo() {
  wrapper bmo
  export GONOSUMDB=github.com/metal3-io GOPROXY=https://proxy.golang.org
  local mod=github.com/metal3-io/baremetal-operator
  go mod edit -require="$mod@$BMO_VERSION" \
    -replace="$mod/apis=$mod/apis@$BMO_APIS_VERSION" \
    -replace="github.com/metal3-io/ironic-standalone-operator/api=github.com/metal3-io/ironic-standalone-operator/api@$BMO_IRSO_API_VERSION"
  local src
  src=$(go mod download -json "$mod@$BMO_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
  [[ -f "$src/config/base/manager.yaml" && -d "$src/config/base/crds/bases" ]] ||
    { log "bmo: no config/base/manager.yaml or config/base/crds/bases in $src"; exit 1; }
  rm -rf "$out/bmo-config"
  cp -r "$src/config" "$out/bmo-config"
  chmod -R u+w "$out/bmo-config"
  go build -trimpath -ldflags "$strip" -o "$bin/baremetal-operator" "$mod"
}

declare -A produces=(
  [etcd]=etcd [k8s]=kwok [pulumi]=pulumi [language-nodejs]=pulumi-language-nodejs
  [kubernetes]=pulumi-resource-kubernetes [tls]=pulumi-resource-tls [random]=pulumi-resource-random
  [bmo]=baremetal-operator
)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(etcd k8s bmo pulumi language-nodejs kubernetes tls random)

# Every target asked for already built: no lock (a build of other targets may hold it, e.g. the
# second stage .ci/run builds while the pod tier starts its local cluster).
have_all=1
for t in "${targets[@]}"; do
  [[ -n "${produces[$t]:-}" && -x "$bin/${produces[$t]}" ]] || have_all=""
done
if [[ -n "$have_all" ]]; then echo "$bin"; exit 0; fi
# Two suites may build at once: one builds, the other waits and then reuses.
exec 9>"$cache/.lock"
flock 9
for t in "${targets[@]}"; do
  [[ -n "${produces[$t]:-}" ]] || { log "unknown target $t"; exit 2; }
  if [[ -x "$bin/${produces[$t]}" ]]; then log "$t: cached"; continue; fi
  start=$SECONDS
  log "$t: building"
  ( "build_${t//-/_}" ) >&2
  log "$t: built in $((SECONDS - start)) s"
done
echo "$bin"
