import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

/**
 * Client order IDs this node generates. The service refuses an ID it has seen, so a retry that
 * sends the same IDs cannot place an order twice. The IDs must therefore be the same for every
 * attempt of one run of the node (n8n's Retry On Fail, the node's own retry after an unknown
 * outcome, a retried execution, which resumes with the failed one's data), and different for
 * anything else: another execution, a later run of the node in a loop, another n8n instance.
 * Execution ids cannot give that (they restart at 1 in every n8n database), so each execution gets
 * a random nonce kept in the node's execution context, which n8n carries across those retries,
 * plus the node's run index.
 */
export function clientOrderIdPrefix(executionContext: IDataObject, runIndex: number): string {
	if (typeof executionContext.clientOrderIdNonce !== 'string') {
		executionContext.clientOrderIdNonce = randomBytes(12).toString('hex');
	}
	return `n8n-${executionContext.clientOrderIdNonce}-${runIndex}`;
}

export function deriveClientOrderId(prefix: string, itemIndex: number, orderIndex: number): string {
	return `${prefix}-${itemIndex}-${orderIndex}`;
}
