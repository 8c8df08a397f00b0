import {
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	NodeOperationError,
} from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { timestampMs } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { FeesWalk } from './feePages';
import { contractField, futuresReturnAllAndLimit } from './futuresFields';
import {
	contractsToRead,
	forEachContract,
	optionalContract,
	wantedEntries,
} from './futuresParameters';

const properties = (version: NodeVersion): INodeProperties[] => [
	contractField(
		version,
		'whose funding fees to list',
		'every contract the exchange lists (at least one request each)',
	),
	{
		displayName: 'Start',
		name: 'startTime',
		type: 'dateTime',
		required: true,
		default: '={{ $now.minus({ days: 1 }).toISO() }}',
		description: 'Earliest settlement time (inclusive)',
	},
	{
		displayName: 'End',
		name: 'endTime',
		type: 'dateTime',
		required: true,
		default: '={{ $now.toISO() }}',
		description: 'Latest settlement time (inclusive)',
	},
	...futuresReturnAllAndLimit(),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getFundingFees'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

/** Newest first by settlement time; fees of one time keep the contracts' order. */
const newestFirst = (a: IDataObject, b: IDataObject) =>
	Number(b.fundingTime) - Number(a.fundingTime);

/**
 * GET /api/v2/futures/historyFundingFees: the funding fees the key's futures account was charged or
 * paid in a time range, newest first, one item per fee as the service answers it: symbol,
 * fundingTime, positionSide, positionSize, markPrice, fundingRate (a fraction: 0.0001 is 0.01%),
 * fee (negative: paid) and feeAsset. The service asks for one contract a request, so an empty
 * Symbol reads exchange information's contracts and walks each in turn (feePages.ts), then merges
 * them newest first; Limit applies to the merged list.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const symbol = optionalContract(run, itemIndex);
	const startTime = timestampMs(node, 'Start', run.parameter('startTime', itemIndex), itemIndex);
	const endTime = timestampMs(node, 'End', run.parameter('endTime', itemIndex), itemIndex);
	if (endTime < startTime)
		throw new NodeOperationError(node, 'End: is before Start', {
			description: 'Pick an End at or after the Start.',
			itemIndex,
		});
	const wanted = wantedEntries(run, itemIndex);
	const contracts = await contractsToRead(run, symbol, itemIndex);
	const fees = await forEachContract(contracts, async (contract) => {
		const walk = new FeesWalk(node, { symbol: contract, startTime, endTime }, wanted, itemIndex);
		await run.client.requestAllPages(FUTURES_ENDPOINTS.historyFundingFees, walk);
		return walk.fees;
	});
	if (contracts.length < 2) return fees;
	const merged = [...fees].sort(newestFirst);
	return wanted === undefined ? merged : merged.slice(0, wanted);
}
