import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

/**
 * Client order IDs this node generates. An order whose outcome is unknown is looked up by its
 * client order ID (transport/reconcile.ts), and the service refuses an ID an open order holds. The
 * IDs must therefore be the same for every attempt of one run of the node (n8n's Retry On Fail, the
 * node's own re-send after a lookup, a retried execution, which resumes with the failed one's
 * data), and different for anything else: another execution, a later run of the node in a loop,
 * another n8n instance.
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

/**
 * The generated ID of one order. `version` counts changed requests in the same place (the write
 * ledger's slot version): an order changed between n8n's re-runs gets a new ID, so it can never be
 * taken for the order it replaces, which may have been placed.
 */
export function deriveClientOrderId(prefix: string, itemIndex: number, orderIndex: number, version = 0): string {
	return `${prefix}-${itemIndex}-${orderIndex}${version > 0 ? `-v${version}` : ''}`;
}
