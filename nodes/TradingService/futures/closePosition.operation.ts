import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import { decimalAbove } from '../helpers/decimals';
import { inputError, oneOf, positiveDecimal } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { settleWrites } from '../writes/engine';
import { withOutcome } from '../writes/outcomes';
import type { Verdict } from '../writes/writeKind';
import { writeSessionOf } from '../writes/writeSession';
import { contractField, requiredContract } from './contracts';
import {
	checkFuturesGuardrails,
	readFuturesGuardrails,
	type FuturesGuardrails,
} from './futuresGuardrails';
import { recordedInLedger } from './futuresOrderChecks';
import { checkFuturesBusinessKeys } from './futuresOrderLookups';
import { validateFuturesOrder, type FuturesOrder } from './futuresOrderRules';
import {
	futuresOrderKind,
	pendingFuturesOrder,
	replayedFuturesOrder,
	type PendingFuturesOrder,
} from './futuresOrderWrites';
import {
	closeInTurn,
	closedNow,
	readBeforeClose,
	sizeToClose,
	type CloseTurn,
} from './runPositions';
import {
	checkFuturesOptions,
	futuresGuardrails,
	futuresOptions,
	futuresTechnicalOptions,
} from './futuresWriteOptions';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['closePosition'] } }, [
		contractField(version, 'whose LONG position to close'),
		{
			displayName: 'Close',
			name: 'closeAmount',
			type: 'options',
			default: 'all',
			options: [
				{ name: 'The Whole Position', value: 'all' },
				{ name: 'A Quantity in the Base Coin', value: 'base' },
				{
					name: 'A Percentage of the Position',
					value: 'percent',
					description: 'Rounded down to the contract’s step size',
				},
			],
			description: 'How much of the position to close',
		},
		{
			displayName: 'Quantity',
			name: 'quantity',
			type: 'string',
			default: '',
			placeholder: 'e.g. 0.01',
			description:
				'The quantity to close, in the base coin (e.g. BTC); at most the position’s size',
			displayOptions: { show: { closeAmount: ['base'] } },
		},
		{
			displayName: 'Percent',
			name: 'percent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 2 },
			default: 50,
			description: 'The share of the position to close, above 0 and at most 100',
			displayOptions: { show: { closeAmount: ['percent'] } },
		},
		futuresGuardrails(['allowedContracts', 'maxOrderNotional', 'maxOrderQuantity']),
		futuresOptions([
			...futuresTechnicalOptions,
			{
				displayName: 'Client Order ID',
				name: 'clientOrderId',
				type: 'string',
				default: '',
				placeholder: 'e.g. kill-switch-2026-01-31',
				description:
					'Your ID for the closing order. Before sending, the node looks it up: if an order holds it, that close is reported (already placed) and nothing is sent.',
			},
		]),
	]);

const LABELS: Record<string, string> = {
	symbol: 'Symbol',
	baseQty: 'Quantity',
	clientOrderId: 'Client Order ID',
	reduceOnly: 'Reduce Only',
};
const label = (field: string) => LABELS[field] ?? field;

interface CloseRequest extends IDataObject {
	symbol: string;
	closeAmount: 'all' | 'base' | 'percent';
	quantity?: string;
	percent?: string;
	clientOrderId?: string;
}

function readRequest(run: RunContext, itemIndex: number, options: IDataObject): CloseRequest {
	const node = run.node;
	const symbol = requiredContract(run, itemIndex);
	const closeAmount = oneOf(
		node,
		'Close',
		run.parameter('closeAmount', itemIndex, 'all'),
		['all', 'base', 'percent'] as const,
		itemIndex,
	);
	const request: CloseRequest = { symbol, closeAmount };
	if (closeAmount === 'base')
		request.quantity = positiveDecimal(
			node,
			'Quantity',
			run.parameter('quantity', itemIndex, ''),
			itemIndex,
		);
	if (closeAmount === 'percent') {
		const percent = positiveDecimal(
			node,
			'Percent',
			run.parameter('percent', itemIndex, ''),
			itemIndex,
		);
		if (decimalAbove(percent, '100'))
			throw inputError(
				node,
				'Percent',
				`${percent} is above 100`,
				'Give a share of the position above 0 and at most 100.',
				itemIndex,
			);
		request.percent = percent;
	}
	if (options.clientOrderId !== undefined && options.clientOrderId !== '')
		request.clientOrderId = options.clientOrderId as string;
	return request;
}

function closingOrder(
	run: RunContext,
	request: CloseRequest,
	itemIndex: number,
	baseQty = '1',
): FuturesOrder {
	const raw: IDataObject = {
		symbol: request.symbol,
		side: 'SELL',
		type: 'MARKET',
		baseQty,
		reduceOnly: true,
	};
	if (request.clientOrderId !== undefined) raw.clientOrderId = request.clientOrderId;
	return validateFuturesOrder(run.node, raw, label, itemIndex);
}

/** No position, and no close found under the business key: nothing to close, nothing sent. */
const NOTHING_TO_CLOSE: Verdict = {
	kind: 'rejected',
	refusal: { detail: { nothingToClose: true } },
};

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const options = run.options(itemIndex, (raw) => checkFuturesOptions(run, raw, itemIndex));
	const guardrails = readFuturesGuardrails(run, itemIndex);
	const request = readRequest(run, itemIndex, options);
	const { allowedContracts } = guardrails;
	checkFuturesGuardrails(
		run.node,
		closingOrder(run, request, itemIndex),
		{ allowedContracts },
		label,
		itemIndex,
	);
	const close: Close = { request, options, guardrails, itemIndex };
	const done = await closeInTurn(
		run,
		request.symbol,
		itemIndex,
		(turn) => settleClose(run, close, turn),
		({ pending }) => closedNow(pending.settled, pending.write.order.baseQty),
	);
	return [closedItem(run, done.pending, request, done.positionBefore)];
}

interface Close {
	request: CloseRequest;
	options: IDataObject;
	guardrails: FuturesGuardrails;
	itemIndex: number;
}

/** Sized from the position as the run's earlier closes of the contract left it, then settled. */
async function settleClose(
	run: RunContext,
	{ request, options, guardrails, itemIndex }: Close,
	turn: CloseTurn,
): Promise<{ pending: PendingFuturesOrder; positionBefore?: string }> {
	const writes = writeSessionOf(run);
	const slot = String(itemIndex);
	let order = closingOrder(run, request, itemIndex);
	let positionBefore: string | undefined;
	let nothing = false;
	// Sent by an earlier try: the ledger settles it, whatever the position is now.
	const recorded = recordedInLedger(writes.ledger, slot, request);
	if (!recorded) {
		const position = await readBeforeClose(run, writes, itemIndex, turn);
		if (position === undefined) nothing = true;
		else {
			positionBefore = String(position.baseQty);
			const size = await sizeToClose(run, request, positionBefore, itemIndex);
			order = closingOrder(run, request, itemIndex, size);
			const mark = (position.markPrice as string | undefined) ?? null;
			checkFuturesGuardrails(run.node, order, guardrails, label, itemIndex, mark);
		}
	}
	if (nothing || recorded) delete order.baseQty;
	const idPrefix = options.generateClientOrderId === false ? undefined : writes.idPrefix;
	const pending = pendingFuturesOrder(
		writes.ledger,
		slot,
		{ order, orderIndex: 0, sizeFromPosition: true },
		itemIndex,
		idPrefix,
		request,
	);
	const kind = futuresOrderKind(writes, {
		endpoint: 'single',
		recvWindow: options.recvWindow as number | undefined,
	});
	turn.sending();
	await settleWrites(
		writes,
		{
			...kind,
			// Without a position only a close found under its client order ID is reported; nothing is sent.
			precheck: async (unsent) =>
				(await checkFuturesBusinessKeys(writes, unsent)).map(
					(verdict) => verdict ?? (nothing ? NOTHING_TO_CLOSE : undefined),
				),
		},
		[pending],
	);
	return { pending, positionBefore };
}

function closedItem(
	run: RunContext,
	pending: PendingFuturesOrder,
	request: CloseRequest,
	positionBefore: string | undefined,
): IDataObject {
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		const order =
			settled.via === 'ledger'
				? replayedFuturesOrder(pending.write, settled.result)
				: settled.result;
		return {
			...order,
			outcome: 'placed',
			...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
			closed: pending.write.order.baseQty ?? order.baseQty ?? null,
			...(positionBefore === undefined ? {} : { positionBefore }),
		};
	}
	if (settled.outcome === 'unknown') throw settled.error;
	if (settled.refusal.detail?.nothingToClose === true)
		return {
			outcome: 'rejected',
			nothingToClose: true,
			symbol: request.symbol,
			closed: '0',
			message: `No LONG position in ${request.symbol}: nothing to close, nothing was sent`,
		};
	throw withOutcome(
		settled.refusal.error ??
			new NodeOperationError(run.node, 'The service refused the closing order', {
				itemIndex: pending.itemIndex,
			}),
		'rejected',
	);
}
