import { NodeOperationError } from 'n8n-workflow';

import {
	itemRanges,
	withOutcome,
	withRunReport,
	type RunReport,
} from '../../../../nodes/TradingService/writes/outcomes';
import { node } from '../../../support/fixedNode';

// The stopping error's report of a run (issue 39, defect 4): what became of the other items and,
// for Create Many, of every order; never "nothing was executed" beside writes that were.

const refused = () =>
	withOutcome(new NodeOperationError(node, 'refused', { description: 'Why.' }), 'rejected');

const report = (overrides: Partial<RunReport>): RunReport => ({
	of: 'all',
	placed: [],
	unknown: [],
	nothingExecuted: [],
	...overrides,
});

describe('withRunReport', () => {
	it('item ranges read as short ranges', () => {
		expect(itemRanges([0, 1, 2, 5, 8, 9])).toBe('0–2, 5, 8–9');
	});

	it('nothing executed anywhere: the error keeps "nothing was executed"', () => {
		const error = withRunReport(refused(), report({ nothingExecuted: [0, 1] }));
		expect(error.description).toBe(
			'Why. Outcome: rejected (nothing was executed). The items of this run: nothing executed: 2 items (items 0–1: not sent, or refused).',
		);
	});

	it('an item placed: the outcome is said of the error’s own write, and running again is explained', () => {
		const error = withRunReport(refused(), report({ placed: [0], nothingExecuted: [1] }));
		expect(error.message).toBe('refused');
		expect(error.description).not.toMatch(/nothing was executed/);
		expect(error.description).toMatch(
			/^Why\. Outcome: rejected \(the write this error names executed nothing; other writes of this run were executed or may have been, as listed\)\. The items of this run: placed, wholly or in part: 1 item \(item 0\); nothing executed: 1 item \(item 1: not sent, or refused\)\. Running the node again/,
		);
		expect(error.context.outcome).toBe('rejected');
	});

	it('issue 49: a Create Many stopped by a refusal after 400 orders were placed leads with its counts, never "nothing was executed"', () => {
		// The transport's own wording of the refused request (transport/rejections.ts), either version.
		for (const own of ['Nothing was executed.', 'This request was not executed.']) {
			const error = withRunReport(
				withOutcome(
					new NodeOperationError(node, 'The service’s rate limit was reached', {
						description: `Wait a minute. ${own}`,
					}),
					'rejected',
				),
				report({ placed: [0], orders: { placed: 400, unknown: 0, rejected: 20, notSent: 580 } }),
			);
			expect(error.message).toBe(
				'400 orders placed before the run stopped: The service’s rate limit was reached',
			);
			expect(error.description).toMatch(
				/^Orders of this run, once every batch in flight was answered: 400 placed, 20 refused \(executed nothing\), 580 not sent\. The items of this run: placed, wholly or in part: 1 item \(item 0\)\. What stopped it: Wait a minute\./,
			);
			const beforeOwn = (error.description ?? '').split('What stopped it:')[0];
			expect(beforeOwn).not.toMatch(/not executed|nothing was executed/i);
		}
	});

	it('Create Many: one item holding many orders, counted order by order', () => {
		const orders = { placed: 59, unknown: 2, rejected: 1, notSent: 18 };
		const error = withRunReport(refused(), report({ placed: [0], orders }));
		expect(error.description).toContain(
			'Orders of this run, once every batch in flight was answered: 59 placed, 2 with an unknown outcome, 1 refused (executed nothing), 18 not sent. The items of this run: placed, wholly or in part: 1 item (item 0).',
		);
		expect(error.message).toBe(
			'59 orders placed (and 2 with an unknown outcome) before the run stopped: refused',
		);
		expect(error.description).not.toMatch(/nothing was executed/);
		expect(error.context.runReport).toEqual({
			placed: '0',
			unknown: '',
			nothingExecuted: '',
			orders,
		});
	});

	it('only orders of unknown outcome: still never "nothing was executed"', () => {
		const orders = { placed: 0, unknown: 20, rejected: 1, notSent: 0 };
		const error = withRunReport(refused(), report({ unknown: [0], orders }));
		expect(error.description).not.toMatch(/nothing was executed/);
	});
});
