import type { IExecuteFunctions } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { clientOrderIdPrefix } from '../../helpers/clientOrderIds';
import { readGuardrails, type GuardrailOptions, type Guardrails } from '../../helpers/guardrails';
import { integerInRange } from '../../helpers/validation';

export interface OrderOptions extends GuardrailOptions {
	generateClientOrderId?: boolean;
	recvWindow?: number;
	failOnRejected?: boolean;
	/** Create only: have the exchange check the order without placing it. */
	testOnly?: boolean;
	/** The guardrail options, checked (helpers/guardrails.ts). */
	guardrails?: Guardrails;
}

/** The order options of one item, checked before anything is sent. */
export function readOrderOptions(this: IExecuteFunctions, itemIndex: number): OrderOptions {
	const options = this.getNodeParameter('options', itemIndex, {}) as OrderOptions;
	if (options.recvWindow !== undefined) {
		integerInRange(this.getNode(), 'Receive Window (Ms)', options.recvWindow, 1, LIMITS.maxRecvWindowMs, itemIndex);
	}
	return { ...options, guardrails: readGuardrails(this.getNode(), options, itemIndex) };
}

/**
 * The prefix of the client order IDs this run of the node generates: a nonce kept in the node's
 * execution context (so n8n's retries reuse it) plus the run index.
 */
export function generatedIdPrefix(this: IExecuteFunctions): string {
	const executionContext = typeof this.getContext === 'function' ? this.getContext('node') : {};
	const runIndex = Number(this.getWorkflowDataProxy(0).$runIndex ?? 0);
	return clientOrderIdPrefix(executionContext, runIndex);
}
