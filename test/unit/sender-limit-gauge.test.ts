import { AggregatorRegistry, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { senderLimitGauge } from '../../src/ops/sender-limit-gauge.js';

describe("a sender's use of its limit over several listener processes", () => {
  it('is the largest value any process saw, not their sum (each reads the same shared counts)', async () => {
    const processes = [0.5, 0.75].map((ratio) => {
      const registry = new Registry();
      senderLimitGauge([registry], () => 0)('acme', 'perHour', ratio);
      return registry;
    });
    const merged = AggregatorRegistry.aggregate(await Promise.all(processes.map((r) => r.getMetricsAsJSON())));

    expect(await merged.metrics()).toContain('letter_intake_sender_limit_use_ratio{sender="acme",limit="perHour"} 0.75');
  });
});
