// Whether a receipt's amounts add up (pure). The contract gives the amounts' meanings (a line's
// total, the subtotal before tax, the tax, the total including tax) but no rule binding them, so
// the sandbox never refuses a receipt for them: it stores them as sent and logs these findings as
// a warning for the integrator to read. Compared exactly, by value (decimal.ts); an amount too
// large or too small to compare so is left out of the comparison.
import type { LineItem, ReceiptBody } from './billing-schemas.js';
import { add, type Decimal, decimalText, multiply, parseDecimal, sameValue, ZERO } from './decimal.js';

export function receiptAmountFindings(receipt: ReceiptBody): string[] {
  const findings: string[] = [];
  const subtotal = amountOf(receipt.subtotal);
  const vat = amountOf(receipt.vatAmount);
  const total = amountOf(receipt.totalAmount);
  if (subtotal !== undefined && vat !== undefined && total !== undefined && !sameValue(add(subtotal, vat), total)) {
    findings.push(`subtotal ${decimalText(subtotal)} + vatAmount ${decimalText(vat)} is not totalAmount ${decimalText(total)}`);
  }
  const lines = receipt.lineItems ?? [];
  lines.forEach((line, index) => {
    const finding = lineFinding(line);
    if (finding !== undefined) findings.push(`lineItems.${index}: ${finding}`);
  });
  const lineTotals = lines.map((line) => amountOf(line.totalAmount));
  if (lineTotals.length > 0 && lineTotals.every((v) => v !== undefined)) {
    const sum = lineTotals.reduce<Decimal>((acc, v) => (v === undefined ? acc : add(acc, v)), ZERO);
    const targets = [total, subtotal].filter((v) => v !== undefined);
    if (targets.length > 0 && !targets.some((target) => sameValue(sum, target))) {
      findings.push(`the line totals add up to ${decimalText(sum)}, which is neither totalAmount nor subtotal`);
    }
  }
  return findings;
}

/** A line's total is its quantity times its unit price, with or without its tax. */
function lineFinding(line: LineItem): string | undefined {
  const quantity = amountOf(line.quantity);
  const price = amountOf(line.unitPrice);
  const total = amountOf(line.totalAmount);
  if (quantity === undefined || price === undefined || total === undefined) return undefined;
  const net = multiply(quantity, price);
  const vat = amountOf(line.vatAmount);
  const gross = vat === undefined ? undefined : add(net, vat);
  if (sameValue(net, total) || (gross !== undefined && sameValue(gross, total))) return undefined;
  return `quantity × unitPrice is ${decimalText(net)}${gross === undefined ? '' : ` (${decimalText(gross)} with vatAmount)`}, not totalAmount ${decimalText(total)}`;
}

function amountOf(amount: number | undefined): Decimal | undefined {
  return amount === undefined ? undefined : parseDecimal(amount);
}
