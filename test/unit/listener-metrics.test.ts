import { describe, expect, it } from 'vitest';
import type { MetricsJson } from '../../src/ops/listener-processes.js';
import { SlotMetrics } from '../../src/runtime/listener-metrics.js';

/** One process's answer: a counter at `value`. */
function answer(value: number): MetricsJson {
  return [
    { name: 'letter_intake_smtp_connections_total', help: 'h', type: 'counter', values: [{ value, labels: {} }], aggregator: 'sum' },
  ] as unknown as MetricsJson;
}

/** The counter summed over what the slot adds to /metrics. */
function total(metrics: readonly MetricsJson[]): number {
  return metrics.flatMap((m) => m.flatMap((metric) => metric.values.map((v) => Number(v.value)))).reduce((a, b) => a + b, 0);
}

/** A slot whose earlier processes answered these counters and exited. */
function slotAfterExits(values: readonly number[]): SlotMetrics {
  const slot = new SlotMetrics();
  for (const value of values) {
    const generation = slot.started();
    slot.answered(generation, answer(value));
    slot.exited(generation);
  }
  return slot;
}

describe("a listener slot's metrics", () => {
  it('two scrapes interleaved: one reading while the other sums the carried counters sees all of them', async () => {
    const slot = slotAfterExits([3, 4]);
    const live = slot.started();
    slot.answered(live, answer(5));

    const first = slot.compact(); // the first scrape's sum is under way
    const duringFirst = total(slot.snapshot()); // the second scrape reads meanwhile
    const second = slot.compact();
    await Promise.all([first, second]);

    expect(duringFirst).toBe(12);
    expect(total(slot.snapshot())).toBe(12);
    expect(slot.snapshot()).toHaveLength(2); // the carried ones summed into one, and the live answer
  });

  it('an exit while a sum runs keeps the exited process counters', async () => {
    const slot = slotAfterExits([1, 2]);
    const third = slot.started();
    slot.answered(third, answer(10));
    const summing = slot.compact();
    slot.exited(third);
    await summing;

    expect(total(slot.snapshot())).toBe(13);
  });

  it('an answer that arrives after its process exited is dropped: not counted twice, and its successor keeps its own', () => {
    const slot = new SlotMetrics();
    const first = slot.started();
    slot.answered(first, answer(7));
    slot.exited(first); // carries 7
    slot.answered(first, answer(9)); // the dead process's later answer, arriving late

    expect(total(slot.snapshot())).toBe(7);

    const second = slot.started();
    slot.answered(first, answer(9));
    slot.answered(second, answer(2));
    expect(total(slot.snapshot())).toBe(9);
  });

  it('a gauge does not carry past its process exit', () => {
    const slot = new SlotMetrics();
    const generation = slot.started();
    const gauge = [
      { name: 'g', help: 'h', type: 'gauge', values: [{ value: 4, labels: {} }], aggregator: 'sum' },
    ] as unknown as MetricsJson;
    slot.answered(generation, [...answer(1), ...gauge]);
    slot.exited(generation);
    expect(
      slot
        .snapshot()
        .flat()
        .map((m) => m.name),
    ).toEqual(['letter_intake_smtp_connections_total']);
  });
});
