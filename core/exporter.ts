/** The ironic image's metrics contract, apart from core/contract.ts (which re-exports it) to keep that file readable. */

/**
 * ironic-prometheus-exporter (docs/ironic-image-contract.md, Metrics): `/bin/runironic-exporter` writes its own
 * ironic.conf and serves on FLASK_RUN_HOST:FLASK_RUN_PORT the files the conductor's `prometheus_exporter`
 * notification driver writes into `notificationsDir`, one per node and one per conductor. SEND_SENSOR_DATA=true
 * on the ironic container turns collection on. No exporter TLS in release-38.0 (ironic-image #1033).
 */
export const EXPORTER = {
    command: "/bin/runironic-exporter",
    port: 9608,
    /** runtimeDir: gunicorn (26 in release-38.0) puts its control socket there, else under $HOME on the read-only root. */
    env: { host: "FLASK_RUN_HOST", port: "FLASK_RUN_PORT", sendSensorData: "SEND_SENSOR_DATA", runtimeDir: "XDG_RUNTIME_DIR" },
    notificationsDir: "/shared/ironic_prometheus_exporter",
    sensorInterval: ["sensor_data", "interval"],
    ownedGroups: ["oslo_messaging_notifications", "sensor_data"], // the template's, once SEND_SENSOR_DATA is on
} as const;
