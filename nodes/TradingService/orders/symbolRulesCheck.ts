import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { decimalAbove, decimalProduct } from '../helpers/decimals';
import { inputError } from '../helpers/validation';
import { withOutcome } from '../writes/outcomes';
import type { RunContext } from '../run/runContext';
import { guardrailsCollection, type Guardrails, type OrderOptions } from './orderOptions';
import type { OrderParams } from './orderRules';
import { readSymbolRules, type FittedValue, type SymbolRules } from './symbolRules';
import { checkSymbolRules } from './symbolRulesFit';

// The run's check of every order of Create and Create Many against the guardrails and the symbol
// rules, before the first is sent: the rules read once (symbolRules.ts), each order fitted
// (symbolRulesFit.ts) or refused, and what its output item says about the rules.

/** "price 50000.001 → 50000.01 for tickSize 0.01": what Fit to Symbol Rules changed. */
function fittedChanges(fitted: FittedValue[]): string {
	return fitted
		.map(({ field, given, sent, rule }) => `${field} ${given} → ${sent} for ${rule}`)
		.join(', ');
}

/**
 * Refuses an order outside the guardrails, with an error that names the limit. `label` names an
 * order field as the user knows it (a parameter, or orders[3].quantity in JSON). `fitted`: what Fit
 * to Symbol Rules changed, when `order` is the fitted order, the one that would be sent: rounding a
 * SELL's price up can take an order within the limits as given over them.
 */
export function checkGuardrails(
	node: INode,
	order: OrderParams,
	guardrails: Guardrails,
	label: (field: string) => string,
	itemIndex?: number,
	fitted: FittedValue[] = [],
): void {
	const asFitted = fitted.length > 0;
	const where = guardrailsCollection(node).label;
	const kind = where === 'Guardrails' ? 'guardrail' : 'option';
	const refused = (
		field: string,
		problem: string,
		limit: string,
		fix = `Change the order, or change the limit in the node’s ${where} if the order is intended.`,
	) =>
		inputError(
			node,
			label(field),
			problem,
			asFitted
				? `The node’s ${limit} ${kind} refuses the order as Fit to Symbol Rules made it (${fittedChanges(fitted)}), which is what would be sent; nothing was sent. Give values that stay within the limit once rounded (a price already on the tick is sent as given; a SELL’s price is rounded up, a BUY’s down), or change the limit in the node’s ${where} if the order is intended.`
				: `The node’s ${limit} ${kind} refuses this order; nothing was sent. ${fix}`,
			itemIndex,
		);
	const shown = (value: string) => (asFitted ? `${value} (after Fit to Symbol Rules)` : value);
	const { allowedSymbols, maxOrderQuantity, maxOrderAmount } = guardrails;
	if (allowedSymbols !== undefined && !allowedSymbols.includes(order.symbol)) {
		throw refused(
			'symbol',
			`${order.symbol} is not in Allowed Symbols (${allowedSymbols.join(', ')})`,
			'Allowed Symbols',
		);
	}
	if (
		maxOrderQuantity !== undefined &&
		order.quantity !== undefined &&
		decimalAbove(order.quantity, maxOrderQuantity)
	) {
		throw refused(
			'quantity',
			`${shown(order.quantity)} is above Max Order Quantity (${maxOrderQuantity})`,
			'Max Order Quantity',
		);
	}
	if (maxOrderAmount !== undefined) {
		if (order.amount !== undefined && decimalAbove(order.amount, maxOrderAmount)) {
			throw refused(
				'amount',
				`${shown(order.amount)} is above Max Order Amount (${maxOrderAmount})`,
				'Max Order Amount',
			);
		}
		if (order.price !== undefined && order.quantity !== undefined) {
			const value = decimalProduct(order.price, order.quantity);
			if (decimalAbove(value, maxOrderAmount)) {
				throw refused(
					'quantity',
					asFitted
						? `the order as fitted to the symbol rules is worth ${value} (Price ${order.price} × Quantity ${order.quantity}), above Max Order Amount (${maxOrderAmount})`
						: `the order is worth ${value} (Price × Quantity), above Max Order Amount (${maxOrderAmount})`,
					'Max Order Amount',
				);
			}
		}
	}
	checkMarketCaps(order, guardrails, refused);
}

/** Refuses an order outside a guardrail: the field at fault, what is wrong, the limit, and how to fix it. */
type GuardrailRefusal = (field: string, problem: string, limit: string, fix?: string) => Error;

/**
 * A limit that cannot be checked before sending refuses the order, never lets it through: a
 * MARKET order by Amount under a quantity cap could buy any quantity (50,000 USDT is about 1 BTC),
 * one by Quantity under an amount cap could cost any amount. Only a MARKET order lacks one of
 * Quantity and Price; LIMIT and LIMIT_MAKER orders have both.
 */
function checkMarketCaps(
	order: OrderParams,
	{ maxOrderQuantity, maxOrderAmount }: Guardrails,
	refused: GuardrailRefusal,
): void {
	const bothLimits =
		'With both Max Order Quantity and Max Order Amount set, only LIMIT and LIMIT_MAKER orders (which have a Quantity and a Price) can be checked: use one of those, or clear one of the two limits.';
	if (maxOrderQuantity !== undefined && order.quantity === undefined) {
		throw refused(
			'amount',
			'a MARKET order by Amount cannot be checked against Max Order Quantity: its quantity is known only once it trades',
			'Max Order Quantity',
			maxOrderAmount !== undefined
				? bothLimits
				: 'Give the order a Quantity (in the base coin) instead of an Amount, or clear Max Order Quantity (Max Order Amount caps an order by Amount).',
		);
	}
	if (maxOrderAmount !== undefined && order.price === undefined && order.amount === undefined) {
		throw refused(
			'quantity',
			'a MARKET order by Quantity cannot be checked against Max Order Amount: its price is known only once it trades',
			'Max Order Amount',
			maxOrderQuantity !== undefined
				? bothLimits
				: 'Give the MARKET order an Amount (the quote coin to spend) instead of a Quantity, or clear Max Order Amount (Max Order Quantity caps an order by Quantity).',
		);
	}
}

/** One order of Create or Create Many, validated and within the guardrails as given. */
export interface OrderToCheck {
	order: OrderParams;
	/** Names an order field as the user knows it (Price, Orders (JSON)[3].price). */
	label: (field: string) => string;
	itemIndex: number;
	options: Pick<OrderOptions, 'fitToSymbolRules' | 'ifSymbolRulesUnreadable' | 'guardrails'>;
	/**
	 * Whether the write ledger holds this order from an earlier try of the node run (Retry On Fail,
	 * a retried execution): it is then settled from the ledger, never refused here.
	 */
	recorded: boolean;
}

/** An order as it may be sent, with what its output item says about the symbol rules. */
export interface CheckedOrder {
	order: OrderParams;
	/** The order as given, before fitting: what the write ledger knows it by. */
	given: OrderParams;
	/** fittedToSymbolRules, or symbolRulesChecked false with symbolRulesProblem. */
	report: IDataObject;
}

/** Why the rules could not be read, in one sentence (never the credential: errors carry none). */
function readProblem(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	const description = (error as { description?: unknown } | null)?.description;
	return typeof description === 'string' && description !== '' && description !== message
		? `${message} (${description.replace(/ ?Outcome: [^.]*\.$/, '')})`
		: message;
}

function unreadableError(run: RunContext, why: string, itemIndex: number): NodeOperationError {
	return withOutcome(
		new NodeOperationError(
			run.node,
			'The symbol rules could not be read, so the order was not sent',
			{
				description: `Reading the exchange’s symbol rules (tick size, step size, minimums) failed: ${why}. Nothing was sent. Run it again later, or set ${guardrailsCollection(run.node).name === 'guardrails' ? 'the guardrail' : 'the option'} If Symbol Rules Can't Be Read to Send Without Checking to send orders unchecked (the exchange still refuses an order that breaks its rules).`,
				itemIndex,
			},
		),
		'rejected',
	);
}

/** One order against the rules read (or why they could not be read): ready to send, or refused. */
function checkOne(
	run: RunContext,
	rules: Map<string, SymbolRules> | undefined,
	why: string,
	{ order, label, itemIndex, options, recorded }: OrderToCheck,
): CheckedOrder | NodeOperationError {
	// An order an earlier try may have placed is the ledger's to settle (answered if placed,
	// looked up if unknown, never sent twice): refusing it now could report a placed order as
	// rejected. Its ledger entry knows it by the order as given.
	const settledByLedger = { order, given: order, report: {} };
	if (rules === undefined) {
		if (recorded) return settledByLedger;
		if (options.ifSymbolRulesUnreadable !== 'sendUnchecked')
			return unreadableError(run, why, itemIndex);
		return { order, given: order, report: { symbolRulesChecked: false, symbolRulesProblem: why } };
	}
	const checked = checkSymbolRules(
		order,
		rules.get(order.symbol),
		options.fitToSymbolRules === true,
	);
	if (!checked.ok) {
		if (recorded) return settledByLedger;
		const { field, problem, fix } = checked.problem;
		return withOutcome(inputError(run.node, label(field), problem, fix, itemIndex), 'rejected');
	}
	if (checked.fitted.length === 0) return { order: checked.order, given: order, report: {} };
	// The guardrails promise a bound on what is sent: a SELL's price rounded up can take an
	// order within them as given over them, so the fitted order is checked again.
	try {
		checkGuardrails(run.node, checked.order, options.guardrails, label, itemIndex, checked.fitted);
	} catch (error) {
		if (recorded) return settledByLedger;
		return withOutcome(error as NodeOperationError, 'rejected');
	}
	return { order: checked.order, given: order, report: { fittedToSymbolRules: checked.fitted } };
}

/**
 * Checks every order against its symbol's rules before any order is sent (Create and Create
 * Many call it once for all their orders, after validation and the guardrails). The rules are
 * read once (symbolRules.ts, kept per process); each order comes back ready to send, fitted when
 * Fit to Symbol Rules is on (and then within the guardrails as fitted), or as the error that
 * refuses it (outcome rejected: nothing was sent).
 */
export async function checkOrdersAgainstSymbolRules(
	run: RunContext,
	orders: OrderToCheck[],
): Promise<Array<CheckedOrder | NodeOperationError>> {
	if (orders.length === 0) return [];
	let rules: Map<string, SymbolRules> | undefined;
	let why = '';
	try {
		rules = await readSymbolRules(run.client, orders[0].itemIndex);
	} catch (error) {
		why = readProblem(error);
	}
	return orders.map((one) => checkOne(run, rules, why, one));
}
