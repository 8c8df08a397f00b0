import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	outcomeOf,
	outcomeUnknownError,
	withOutcome,
} from '../../../../nodes/TradingService/writes/outcomes';
import { node } from '../../../support/fixedNode';

// How a write ended, on its error: placed, rejected or unknown (fixed vectors).

describe('outcomeOf', () => {
	it("reads the outcome from an error's context, and nothing else", () => {
		const marked = new NodeOperationError(node, 'x');
		marked.context.outcome = 'unknown';
		expect(outcomeOf(marked)).toBe('unknown');
		const other = new NodeOperationError(node, 'x');
		other.context.outcome = 'maybe';
		expect(outcomeOf(other)).toBeUndefined();
		expect(outcomeOf(new NodeOperationError(node, 'x'))).toBeUndefined();
		expect(outcomeOf(new Error('plain'))).toBeUndefined();
		expect(outcomeOf(null)).toBeUndefined();
		expect(outcomeOf('text')).toBeUndefined();
	});
});

describe('withOutcome', () => {
	it('marks the context and ends the description with the outcome sentence', () => {
		const error = withOutcome(
			new NodeOperationError(node, 'Quantity: is empty', { description: 'Enter a quantity.' }),
			'rejected',
		);
		expect(error.context.outcome).toBe('rejected');
		expect(error.description).toBe('Enter a quantity. Outcome: rejected (nothing was executed).');
		expect(outcomeOf(error)).toBe('rejected');
	});

	it('an error without a description gets the sentence alone', () => {
		expect(withOutcome(new NodeOperationError(node, 'x'), 'placed').description).toBe(
			'Outcome: placed.',
		);
	});

	it('marking again replaces the outcome sentence instead of adding a second one', () => {
		const error = new NodeApiError(node, {}, { message: 'm', description: 'Check the order.' });
		withOutcome(error, 'rejected');
		withOutcome(error, 'unknown');
		expect(error.description).toBe(
			'Check the order. Outcome: unknown (it may have been executed).',
		);
		expect(error.context.outcome).toBe('unknown');
	});

	it('returns the same error', () => {
		const error = new NodeOperationError(node, 'x');
		expect(withOutcome(error, 'placed')).toBe(error);
	});
});

describe('outcomeUnknownError', () => {
	it('names the write and the cause, says it was not sent again and what to check', () => {
		const error = outcomeUnknownError(
			node,
			{
				what: 'BUY LIMIT order for BTCUSDT',
				howToCheck: 'Check your open orders and trade history for BTCUSDT',
			},
			'the connection was dropped',
			'Client order ID n8n-1-0-0',
			3,
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(
			'Unknown outcome: the BUY LIMIT order for BTCUSDT may or may not have been executed (the connection was dropped)',
		);
		expect(error.description).toBe(
			'Client order ID n8n-1-0-0. The service did not confirm the BUY LIMIT order for BTCUSDT, so it was not sent again: sending it again could execute it twice. Check your open orders and trade history for BTCUSDT before you run this again. Outcome: unknown (it may have been executed).',
		);
		expect(outcomeOf(error)).toBe('unknown');
		expect(error.context.itemIndex).toBe(3);
	});
});
