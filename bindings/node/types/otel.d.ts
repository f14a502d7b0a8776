/** True when @opentelemetry/api was found: runs then emit spans and metrics through it. */
export function enabled(): boolean;
