import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	errorItemJson,
	outcomeOf,
	withOutcome,
	writeError,
} from '../../../../nodes/TradingService/writes/outcomes';
import { node } from '../../../support/fixedNode';

// The item of an error under Continue On Fail, and the outcome of a write's error (fixed vectors).

describe('errorItemJson', () => {
	it('holds the message and the description, and no outcome for an error that is not about a write', () => {
		const json = errorItemJson(
			new NodeOperationError(node, 'Symbol: "btc" is not a trading pair symbol', {
				description: 'Enter the symbol in upper case without separators, e.g. BTCUSDT.',
			}),
		);
		expect(json).toEqual({
			error: 'Symbol: "btc" is not a trading pair symbol',
			description: 'Enter the symbol in upper case without separators, e.g. BTCUSDT.',
		});
		expect(json).not.toHaveProperty('outcome');
	});

	it("carries the outcome of a write's error", () => {
		const error = withOutcome(new NodeApiError(node, {}, { message: 'Refused' }), 'rejected');
		expect(errorItemJson(error)).toEqual({
			error: 'Refused',
			description: 'Outcome: rejected (nothing was executed).',
			outcome: 'rejected',
		});
	});

	it('an error without a description gives no description text', () => {
		expect(errorItemJson(new Error('plain')).description).toBeUndefined();
	});
});

describe('writeError', () => {
	it('an error the write engine did not mark was thrown before anything was sent: rejected', () => {
		const input = new NodeOperationError(node, 'Quantity: is empty', {
			description: 'Enter a quantity.',
		});
		const error = writeError(node, input);
		expect(error).toBe(input);
		expect(outcomeOf(error)).toBe('rejected');
		expect(error.description).toBe('Enter a quantity. Outcome: rejected (nothing was executed).');
	});

	it('an outcome the engine set is kept: an unknown write stays unknown', () => {
		const unknown = withOutcome(
			new NodeApiError(node, {}, { message: 'Unknown outcome' }),
			'unknown',
		);
		expect(outcomeOf(writeError(node, unknown))).toBe('unknown');
		const placed = withOutcome(new NodeOperationError(node, 'Placed, then stopped'), 'placed');
		expect(outcomeOf(writeError(node, placed))).toBe('placed');
	});

	it('anything that is not an n8n error becomes a NodeOperationError with its message, rejected', () => {
		const fromError = writeError(node, new TypeError('cannot read x'));
		expect(fromError).toBeInstanceOf(NodeOperationError);
		expect(fromError.message).toBe('cannot read x');
		expect(outcomeOf(fromError)).toBe('rejected');
		const fromText = writeError(node, 'went wrong');
		expect(fromText.message).toBe('went wrong');
		expect(outcomeOf(fromText)).toBe('rejected');
	});
});
