import type { IDataObject, INode } from 'n8n-workflow';

import { inputError } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { withOutcome } from '../writes/outcomes';
import { readContracts } from './contracts';
import { checkContractRules, contractRules, type ContractRules } from './futuresContractRules';
import { checkFuturesGuardrails, needsMark, type FuturesGuardrails } from './futuresGuardrails';
import { misplacedTpSl, orderIds, type FuturesOrder } from './futuresOrderRules';
import { readMark } from './runPositions';

// Every futures order of a run checked before the first is sent; guardrails hold for the order as
// it would be sent (after fitting).

export interface FuturesOrderToCheck {
	order: FuturesOrder;
	label: (field: string) => string;
	itemIndex: number;
	guardrails: FuturesGuardrails;
	/** Whether the write ledger holds this very request from an earlier try: fitted, never refused. */
	recorded: boolean;
}

/** A changed request (another fingerprint) is checked in full. */
export function recordedInLedger(ledger: WriteLedger, slot: string, key: IDataObject): boolean {
	return ledger.slot(slot, fingerprint('futuresOrder', key)).recorded !== undefined;
}

/** An order's own, take-profit and stop-loss IDs; one taken before refuses the order. */
export function claimOrderIds(
	node: INode,
	taken: Map<string, { itemIndex: number; whose: string }>,
	order: FuturesOrder,
	field: string,
	itemIndex: number,
): void {
	for (const { id, whose } of orderIds(order)) {
		const first = taken.get(id);
		if (first !== undefined) {
			const roles =
				first.whose === whose && whose === 'client order ID'
					? ''
					: `: item ${first.itemIndex}’s ${first.whose}, and item ${itemIndex}’s ${whose}`;
			throw inputError(
				node,
				field,
				`"${id}" is used by more than one order (items ${first.itemIndex} and ${itemIndex})${roles}`,
				'Give every order its own client order ID: the second would otherwise be taken for the first. The node names an order’s take-profit and stop-loss orders <ID>-tp and <ID>-sl, so those IDs are taken too.',
				itemIndex,
			);
		}
	}
	for (const { id, whose } of orderIds(order)) taken.set(id, { itemIndex, whose });
}

/** `given`: before fitting (the ledger's key). */
export interface CheckedFuturesOrder {
	order: FuturesOrder;
	given: FuturesOrder;
	report: IDataObject;
}

function readProblem(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	const description = (error as { description?: unknown } | null)?.description;
	return typeof description === 'string' && description !== ''
		? `${message} (${description})`
		: message;
}

function refused(node: INode, field: string, problem: string, fix: string, itemIndex: number) {
	return withOutcome(inputError(node, field, problem, fix, itemIndex), 'rejected');
}

type RulesRead = { rules: Map<string, ContractRules> } | { why: string };

/** Fitted for a recorded write, so its lookup compares what was sent: never refused. */
function fittedAsRecorded(read: RulesRead, one: FuturesOrderToCheck): CheckedFuturesOrder {
	const { order, guardrails } = one;
	const checked =
		'why' in read
			? undefined
			: checkContractRules(
					order,
					read.rules.get(order.symbol),
					guardrails.fitToContractRules === true,
				);
	return { order: checked?.ok === true ? checked.order : order, given: order, report: {} };
}

function checkOne(
	run: RunContext,
	read: RulesRead,
	marks: Map<string, string | null>,
	one: FuturesOrderToCheck,
): CheckedFuturesOrder | Error {
	const { order, label, itemIndex, guardrails } = one;
	if (one.recorded) return fittedAsRecorded(read, one);
	const mark = marks.get(order.symbol);
	try {
		if ('why' in read) {
			if (guardrails.ifContractRulesUnreadable !== 'send')
				return refused(
					run.node,
					'Symbol',
					'the contract rules could not be read, so the order was not sent',
					`Reading exchange information failed: ${read.why}. Nothing was sent. Run it again later, or set the guardrail If Contract Rules Can't Be Read to Send Without Checking.`,
					itemIndex,
				);
			checkFuturesGuardrails(run.node, order, guardrails, label, itemIndex, mark ?? null);
			return {
				order,
				given: order,
				report: { contractRulesChecked: false, contractRulesProblem: read.why },
			};
		}
		const checked = checkContractRules(
			order,
			read.rules.get(order.symbol),
			guardrails.fitToContractRules === true,
		);
		if (!checked.ok)
			return refused(run.node, label(checked.field), checked.problem, checked.fix, itemIndex);
		// Rounding may put a take profit or stop loss on the wrong side of the price: checked again.
		const misplaced = checked.fitted.length > 0 ? misplacedTpSl(checked.order) : undefined;
		if (misplaced !== undefined)
			return refused(
				run.node,
				label(misplaced.field),
				`${misplaced.problem}, as Fit to Contract Rules rounded them (${checked.fitted.map((fit) => `${fit.field} ${fit.given} → ${fit.sent}`).join(', ')})`,
				`Nothing was sent. ${misplaced.fix} Give prices on the tick size, or further apart.`,
				itemIndex,
			);
		checkFuturesGuardrails(
			run.node,
			checked.order,
			guardrails,
			label,
			itemIndex,
			mark ?? null,
			checked.fitted,
		);
		const report = checked.fitted.length > 0 ? { fittedToContractRules: checked.fitted } : {};
		return { order: checked.order, given: order, report };
	} catch (error) {
		return withOutcome(error as ReturnType<typeof inputError>, 'rejected');
	}
}

export async function checkFuturesOrders(
	run: RunContext,
	orders: FuturesOrderToCheck[],
): Promise<Array<CheckedFuturesOrder | Error>> {
	// Recorded orders are read the rules too when fitted: their lookup compares the order as sent.
	const reading = orders.filter((one) => !one.recorded || one.guardrails.fitToContractRules);
	if (reading.length === 0) return orders.map(({ order }) => ({ order, given: order, report: {} }));
	const itemIndex = reading[0].itemIndex;
	const read: RulesRead = await run
		.shared('futures contracts', () => readContracts(run.client, itemIndex))
		.then(
			(contracts) => ({ rules: new Map(contracts.map((one) => [one.symbol, contractRules(one)])) }),
			(error: unknown) => ({ why: readProblem(error) }),
		);
	const marks = new Map<string, string | null>();
	for (const { order, guardrails, itemIndex: item, recorded } of orders)
		if (!recorded && needsMark(order, guardrails) && !marks.has(order.symbol))
			marks.set(order.symbol, await readMark(run, order.symbol, item));
	return orders.map((one) => checkOne(run, read, marks, one));
}
