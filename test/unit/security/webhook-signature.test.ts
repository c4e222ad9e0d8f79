/**
 * Webhook signatures against the spec's example, and the ids they carry.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkflowId } from '../../../src/shared/owner.js';
import { signWebhook, webhookId } from '../../../src/security/webhook-signature.js';

describe('signatures and ids', () => {
  it("match the Standard Webhooks specification's example", () => {
    // The spec's reference libraries share this vector.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook([secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('derive a spec-valid webhook-id and the owner from the workflow id', () => {
    expect(webhookId('order.10023:close')).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhookId('a')).toBe(webhookId('a'));
    expect(webhookId('orders/a')).not.toBe(webhookId('a'));
    expect(parseWorkflowId('order-1').owner).toBe('default');
    expect(parseWorkflowId('orders/order-1').owner).toBe('orders');
  });
});
