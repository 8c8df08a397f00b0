import type { INodeExecutionData } from 'n8n-workflow';

import { ServiceClient } from '../../../../nodes/TradingService/transport';
import { pollBounds, readSettings } from '../../../../nodes/TradingService/trigger/pollParameters';
import { noTestEventError } from '../../../../nodes/TradingService/trigger/eventSources';
import { MANUAL_MAX_PAGES, fetchTestEvent } from '../../../../nodes/TradingService/trigger/poll';
import { triggerNode } from '../../../../tools/harness/trigger';
import { historyRequests } from '../../../support/trigger';
import { useSandbox } from '../../../support/sandbox';
import { addFundingFees, inPoll, pollFunctions } from './support';

// "Fetch Test Event": the newest record that passes the filters, and what it says when there is
// none (pure, from fixed walks; and through n8n-core's poll functions against the sandbox).

const node = triggerNode();
const fundingFees = (direction = 'both', filters = {}, accountType = 0) =>
	readSettings(pollFunctions({ event: 32, direction, filters, accountType }, node));

describe('noTestEventError', () => {
	it('no record at all: says how long the service keeps them', () => {
		const error = noTestEventError(node, fundingFees(), { records: [] });
		expect(error.message).toBe('No Funding Fee record in the last 30 days');
		expect(error.description).toBe(
			'The service keeps Funding Fee records for 30 days and has none. The trigger will fire on the next one that appears once the workflow is active.',
		);
		expect(noTestEventError(node, fundingFees('both', {}, 3), { records: [] }).description).toMatch(
			/has none for this Account Type\./,
		);
	});

	it('none that passes the filters: names them and shows the newest record to compare', () => {
		const settings = fundingFees('outgoing', { coin: 'usdt' });
		const newest = { id: '1', created: '5', coin: 'USDT', change: '-0.5' };
		expect(noTestEventError(node, settings, { records: [newest] })).toMatchObject({
			message: 'No Funding Fee record matches Direction outgoing, Coin "usdt" in the last 30 days',
			description:
				'Coin and Symbol must equal the service\'s value exactly, including upper and lower case. For comparison, the newest Funding Fee record has coin "USDT", no symbol, change -0.5.',
		});
		expect(
			noTestEventError(node, settings, { records: [newest, newest], resume: { from: 0, to: 3 } })
				.message,
		).toMatch(/among the newest 2 records$/);
		// An earliest-first service: the stopped walk read the earliest records, below the rest.
		expect(
			noTestEventError(node, settings, { records: [newest], resume: { from: 5, to: 9 } }).message,
		).toMatch(/among the earliest 1 records$/);
	});
});

describe('fetchTestEvent', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });
	/** A manual poll ("Fetch Test Event") of a funding-fee trigger node with these parameters. */
	const fetch = (parameters = {}): Promise<INodeExecutionData[]> =>
		inPoll(
			sandbox(),
			(context) => {
				const settings = readSettings(context);
				const bounds = pollBounds(settings, Date.now());
				return fetchTestEvent(context.getNode(), new ServiceClient(context), settings, bounds);
			},
			{ parameters, mode: 'manual' },
		);

	function fees(changes: string[], coin = 'USDT') {
		const now = sandbox().now();
		return addFundingFees(
			sandbox(),
			changes.map((change, index) => ({ created: now - (index + 1) * 1000, change, coin })),
		);
	}

	it('returns the newest record, in one request', async () => {
		const [newest] = fees(['-0.1', '-0.2']);
		expect(await fetch()).toEqual([{ json: expect.objectContaining({ id: newest.id }) }]);
		expect(historyRequests(sandbox())).toHaveLength(1);
	});

	it('returns the newest record that passes the filters', async () => {
		const [, credit] = fees(['-0.1', '0.3', '-0.2']);
		const items = await fetch({ direction: 'incoming' });
		expect(items.map((item) => item.json.id)).toEqual([credit.id]);
	});

	it(`looks through at most ${MANUAL_MAX_PAGES} pages for a match`, async () => {
		fees(Array.from({ length: 500 * MANUAL_MAX_PAGES + 1 }, () => '-0.1'));
		// A page after the first starts at the oldest millisecond of the one before, whose record is
		// not counted twice: 500 + 9 × 499 records.
		await expect(fetch({ direction: 'incoming' })).rejects.toThrow(
			/^No Funding Fee record matches Direction incoming among the newest 4991 records$/,
		);
		expect(historyRequests(sandbox())).toHaveLength(MANUAL_MAX_PAGES);
	});

	it('no record at all: the error says so', async () => {
		await expect(fetch()).rejects.toThrow('No Funding Fee record in the last 30 days');
	});
});
