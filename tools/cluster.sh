#!/usr/bin/env bash
# A local Kubernetes control plane for people and tests, on loopback, with no hardware and no
# container runtime: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (which
# plays every kubelet: pods become Ready, Job pods complete), built by tools/toolchain/build.sh.
#
#   npm run -s cluster -- up DIR     start it with its state in DIR; prints only `export NAME=value`
#                                    lines (eval them): the built pulumi and plugins first on PATH,
#                                    KUBECONFIG, and PULUMI_* for a file backend in DIR, no downloads
#   npm run -s cluster -- down DIR   stop every process it started, by PID, and remove DIR
#
# Nodes: cp-0, cp-1, cp-2 (control plane: labelled and tainted as kubeadm does) and worker-0,
# worker-1, all Ready; PersistentVolumes for the claims the program makes. Every port is picked
# free at start and held by a reserving process until the daemons have bound it, so two clusters
# (two test suites) starting at the same time never get the same port. Logs: DIR/logs/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { echo "usage: cluster.sh up|down DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
cmd=$1
dir=$2
log() { printf '[cluster] %s\n' "$*" >&2; }

stop() {
  local d=$1
  [[ -f "$d/pids" ]] || return 0
  # Newest first: kwok and the controllers before the API server, etcd last. Those exit within
  # about a second of SIGTERM; the API server's graceful shutdown took 12 s and etcd's 9 s (measured,
  # load 14), waits that keep nothing (down removes DIR; a failed start keeps only its logs): after
  # 2 s, SIGKILL.
  local pids
  pids=$(tac "$d/pids")
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 10); do
    local alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [[ $alive -eq 0 ]] && return 0
    sleep 0.2
  done
  for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
}

if [[ "$cmd" == "down" ]]; then
  [[ -d "$dir" ]] || { log "$dir: no such cluster directory"; exit 0; }
  stop "$dir"
  rm -rf "$dir"
  exit 0
fi
[[ "$cmd" == "up" ]] || usage

# What a cluster runs (etcd, Kubernetes, kwok): the toolchain's first stage, so that it starts
# while the rest (the Pulumi CLI and plugins, for the e2e tier) may still be building.
bin=$("$here/toolchain/build.sh" etcd k8s | tail -1)
# shellcheck source=toolchain/versions.env
source "$here/toolchain/versions.env"
cache=${METAL3_TOOLCHAIN_CACHE:-/var/cache/metal3-ironic-toolchain}
stages=$cache/gomod/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/stage
[[ -d "$stages" ]] || { log "kwok's stages are missing from the module cache ($stages): run tools/toolchain/build.sh k8s"; exit 1; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[[ -e "$dir/pids" ]] && { log "$dir already holds a cluster (down it first)"; exit 1; }
mkdir -p "$dir/logs" "$dir/pki" "$dir/etcd" "$dir/pulumi-home" "$dir/state"
: >"$dir/pids"
on_exit() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then log "start failed (rc $rc); logs in $dir/logs"; stop "$dir"; fi
}
trap on_exit EXIT

# Free loopback ports, reserved until the cluster is up: a holder process keeps each bound (with
# SO_REUSEADDR, never listening) so that no other program picking a free port gets it in the
# meantime (another suite's cluster starting at the same time), while the daemons, Go programs
# whose listeners set SO_REUSEADDR, bind it. Released once every node is Ready.
python3 - "$dir/ports.held" <<'PY' >"$dir/logs/port-holder.log" 2>&1 &
import os, signal, socket, sys
socks = []
for _ in range(7):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(" ".join(str(s.getsockname()[1]) for s in socks) + "\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()
PY
holder=$!
echo "$holder" >>"$dir/pids"
for _ in $(seq 1 100); do [[ -s "$dir/ports.held" ]] && break; sleep 0.05; done
[[ -s "$dir/ports.held" ]] || { log "the port holder reserved no ports"; exit 1; }
read -r etcd_port etcd_peer api_port kcm_port sched_port kwok_port etcd_metrics <"$dir/ports.held"
printf 'API_PORT=%s\nETCD_PORT=%s\n' "$api_port" "$etcd_port" >"$dir/ports.env"

# PKI: one CA; the API server's serving certificate; an admin client (system:masters) that the
# controllers, kwok and the user share; the service-account signing key.
pki=$dir/pki
openssl_q() { openssl "$@" 2>>"$dir/logs/openssl.log"; }
openssl_q req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=metal3-ironic-local-ca" \
  -keyout "$pki/ca.key" -out "$pki/ca.crt"
openssl_q req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr"
printf 'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' >"$pki/apiserver.ext"
openssl_q x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
  -extfile "$pki/apiserver.ext" -out "$pki/apiserver.crt"
openssl_q req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=local-admin" -keyout "$pki/admin.key" -out "$pki/admin.csr"
printf 'extendedKeyUsage=clientAuth\n' >"$pki/admin.ext"
openssl_q x509 -req -in "$pki/admin.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
  -extfile "$pki/admin.ext" -out "$pki/admin.crt"
openssl_q genrsa -out "$pki/sa.key" 2048
openssl_q rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub"

kubeconfig=$dir/kubeconfig
cat >"$kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $pki/ca.crt
users:
- name: local-admin
  user:
    client-certificate: $pki/admin.crt
    client-key: $pki/admin.key
contexts:
- name: local
  context: {cluster: local, user: local-admin}
current-context: local
EOF

start() {
  local name=$1; shift
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >>"$dir/pids"
}

start etcd "$bin/etcd" --name local --data-dir "$dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "local=http://127.0.0.1:$etcd_peer" --listen-metrics-urls "http://127.0.0.1:$etcd_metrics" \
  --unsafe-no-fsync --quota-backend-bytes 2147483648

start kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
  --endpoint-reconciler-type none --service-cluster-ip-range 10.96.0.0/16 \
  --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" --client-ca-file "$pki/ca.crt" \
  --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$pki/sa.pub" \
  --service-account-signing-key-file "$pki/sa.key" --authorization-mode Node,RBAC --allow-privileged=true \
  --cert-dir "$pki" --profiling=false --enable-priority-and-fairness=false

kc() { "$bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
for _ in $(seq 1 300); do kc get --raw /readyz >/dev/null 2>&1 && break; sleep 0.2; done
kc get --raw /readyz >/dev/null

start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$kubeconfig" --leader-elect=false \
  --bind-address 127.0.0.1 --secure-port "$kcm_port" --service-account-private-key-file "$pki/sa.key" \
  --root-ca-file "$pki/ca.crt" --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
  --use-service-account-credentials=false --profiling=false
start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$kubeconfig" --leader-elect=false \
  --bind-address 127.0.0.1 --secure-port "$sched_port" --profiling=false

# kwok's stages (its "fast" set, from its module): nodes Ready with a heartbeat through their
# Lease, pods Ready, Job pods Succeeded, deleted pods gone.
{
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"; cat "$stages/$f"
  done
} >"$dir/kwok-stages.yaml"
start kwok "$bin/kwok" --kubeconfig "$kubeconfig" --config "$dir/kwok-stages.yaml" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds 40 --cidr 10.244.0.1/16 --node-ip 10.1.0.1 \
  --server-address "127.0.0.1:$kwok_port"

# Nodes as kubeadm labels and taints them; addresses on a documentation range that nothing
# ever dials (no kubelet behind them).
nodes=""
i=0
for n in cp-0 cp-1 cp-2 worker-0 worker-1; do
  if [[ $n == cp-* ]]; then
    role='node-role.kubernetes.io/control-plane: ""'
    taints='  taints:
  - key: node-role.kubernetes.io/control-plane
    effect: NoSchedule'
  else
    role='node-role.kubernetes.io/worker: ""'
    taints=''
  fi
  nodes+="---
apiVersion: v1
kind: Node
metadata:
  name: $n
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: $n
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    $role
spec:
$taints
status:
  addresses:
  - {type: InternalIP, address: 192.0.2.$((10 + i))}
  - {type: Hostname, address: $n}
"
  i=$((i + 1))
done
printf '%s' "$nodes" | kc apply -f - >"$dir/logs/nodes.log"

# PersistentVolumes without a class, which claims without a class bind to (never mounted: no kubelet).
pvs=""
for k in 0 1 2 3 4 5; do
  pvs+="---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: local-pv-$k
spec:
  capacity: {storage: 100Gi}
  accessModes: [ReadWriteOnce, ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /nonexistent/local-pv-$k}
"
done
printf '%s' "$pvs" | kc apply -f - >"$dir/logs/pvs.log"

# Ready when every node is Ready and the default ServiceAccount exists (admission needs it).
for _ in $(seq 1 300); do
  ready=$(kc get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null | grep -c True || true)
  if [[ "$ready" -eq 5 ]] && kc -n default get serviceaccount default >/dev/null 2>&1; then break; fi
  sleep 0.2
done
[[ "$ready" -eq 5 ]] || { log "nodes not Ready: $(kc get nodes 2>&1)"; exit 1; }
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
log "up: API https://127.0.0.1:$api_port, 5 nodes Ready, state in $dir"

cat <<EOF
export PATH=$bin:\$PATH
export KUBECONFIG=$kubeconfig
export PULUMI_HOME=$dir/pulumi-home
export PULUMI_BACKEND_URL=file://$dir/state
export PULUMI_CONFIG_PASSPHRASE=local-cluster
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=true
EOF
