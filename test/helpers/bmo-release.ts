/** A small baremetal-operator release for the unit and program tiers (the real one is the toolchain's: test/integration/bmo-release.test.ts). */

/** A release in v0.13's layout: the kustomizations list their files; the objects carry the release's names. */
export function smallRelease(): Map<string, string> {
    return new Map([
        ["base/crds/kustomization.yaml", "resources:\n- bases/metal3.io_baremetalhosts.yaml\n"],
        ["base/crds/bases/metal3.io_baremetalhosts.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: baremetalhosts.metal3.io\nspec:\n  group: metal3.io\n"],
        ["base/rbac/kustomization.yaml", "resources:\n- service_account.yaml\n- role.yaml\n- role_binding.yaml\n- leader_election_role.yaml\n- leader_election_role_binding.yaml\n- metrics_service.yaml\n"],
        ["base/rbac/service_account.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: controller-manager\n  namespace: system\n"],
        ["base/rbac/role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules:\n- apiGroups: [metal3.io]\n  resources: [baremetalhosts]\n  verbs: [get]\n"],
        ["base/rbac/role_binding.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: manager-rolebinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: manager-role\nsubjects:\n- kind: ServiceAccount\n  name: controller-manager\n  namespace: system\n"],
        ["base/rbac/leader_election_role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: leader-election-role\nrules:\n- apiGroups: [coordination.k8s.io]\n  resources: [leases]\n  verbs: [get]\n"],
        ["base/rbac/leader_election_role_binding.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: leader-election-rolebinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: leader-election-role\nsubjects:\n- kind: ServiceAccount\n  name: controller-manager\n  namespace: system\n"],
        ["base/rbac/metrics_service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: controller-manager-metrics-service\n  namespace: system\nspec:\n  ports:\n  - port: 8443\n  selector:\n    control-plane: controller-manager\n"],
        ["base/webhook/kustomization.yaml", "resources:\n- manifests.yaml\n- service_patch.yaml\n"],
        [
            "base/webhook/manifests.yaml",
            "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: validating-webhook-configuration\nwebhooks:\n- name: baremetalhost.metal3.io\n  clientConfig:\n    service:\n      name: webhook-service\n      namespace: system\n      path: /validate-metal3-io-v1alpha1-baremetalhost\n  failurePolicy: Fail\n  sideEffects: None\n  admissionReviewVersions: [v1]\n",
        ],
        ["base/webhook/service_patch.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: webhook-service\n  namespace: system\nspec:\n  ports:\n  - port: 443\n    targetPort: 9443\n  selector:\n    control-plane: controller-manager\n"],
        [
            "base/manager.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller-manager\n  namespace: system\n  labels:\n    control-plane: controller-manager\nspec:\n  selector:\n    matchLabels:\n      control-plane: controller-manager\n  template:\n    metadata:\n      labels:\n        control-plane: controller-manager\n    spec:\n      serviceAccountName: controller-manager\n      containers:\n      - name: manager\n        image: quay.io/metal3-io/baremetal-operator\n        envFrom:\n        - configMapRef:\n            name: ironic\n",
        ],
        [
            "base/manager_webhook_patch.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        volumeMounts:\n        - mountPath: /tmp/k8s-webhook-server/serving-certs\n          name: cert\n      volumes:\n      - name: cert\n        secret:\n          secretName: bmo-webhook-server-cert\n",
        ],
        [
            "components/tls/tls_ca_patch.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        volumeMounts:\n        - name: cacert\n          mountPath: /opt/metal3/certs/ca\n      volumes:\n      - name: cacert\n        secret:\n          secretName: ironic-cacert\n",
        ],
        [
            "components/basic-auth/credentials_patch.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        volumeMounts:\n        - name: ironic-credentials\n          mountPath: /opt/metal3/auth/ironic\n      volumes:\n      - name: ironic-credentials\n        secret:\n          secretName: ironic-credentials\n",
        ],
    ]);
}
