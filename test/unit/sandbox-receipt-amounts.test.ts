// Whether a receipt's amounts add up (pure): findings for the sandbox's log, never a refusal.
import { describe, expect, it } from 'vitest';
import { receiptAmountFindings } from '../../src/sandbox/billing-consistency.js';
import type { ReceiptBody } from '../../src/sandbox/billing-schemas.js';

const receipt = (fields: Partial<ReceiptBody>): ReceiptBody => ({ reference: 'R-1', currency: 'Aed', ...fields });

describe('receiptAmountFindings', () => {
  it('finds nothing in a tax-inclusive total whose parts add up', () => {
    const lines = [
      { description: 'Coffee', quantity: 2, unitPrice: 10, totalAmount: 21, vatAmount: 1 },
      { description: 'Cake', quantity: 1, unitPrice: 0.1, totalAmount: 0.1 },
    ];
    expect(receiptAmountFindings(receipt({ lineItems: lines, subtotal: 20.1, vatAmount: 1, totalAmount: 21.1 }))).toEqual([]);
  });

  it('finds nothing where too little is given to compare', () => {
    expect(receiptAmountFindings(receipt({ lineItems: [{ description: 'Coffee', quantity: 1 }], totalAmount: 99 }))).toEqual([]);
  });

  it('finds a subtotal and tax that are not the total', () => {
    expect(receiptAmountFindings(receipt({ subtotal: 20, vatAmount: 1, totalAmount: 22 }))).toEqual([
      'subtotal 20 + vatAmount 1 is not totalAmount 22',
    ]);
  });

  it('finds a line whose total is neither its price nor its price with tax', () => {
    expect(
      receiptAmountFindings(receipt({ lineItems: [{ description: 'Coffee', quantity: 3, unitPrice: 0.1, totalAmount: 0.31 }] })),
    ).toEqual(['lineItems.0: quantity × unitPrice is 0.3, not totalAmount 0.31']);
  });

  it('finds line totals that add up to neither the total nor the subtotal', () => {
    const lines = [{ description: 'Coffee', quantity: 1, totalAmount: 5 }];
    expect(receiptAmountFindings(receipt({ lineItems: lines, subtotal: 4, totalAmount: 6 }))).toEqual([
      'the line totals add up to 5, which is neither totalAmount nor subtotal',
    ]);
  });
});
