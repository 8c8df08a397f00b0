import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { inputError } from '../helpers/validation';
import { withOutcome } from '../writes/outcomes';
import type { RunContext } from '../run/runContext';
import { checkGuardrails, type OrderOptions } from './orderOptions';
import type { OrderParams } from './orderRules';
import { readSymbolRules, type SymbolRules } from './symbolRules';
import { checkSymbolRules } from './symbolRulesFit';

// The run's check of every order of Create and Create Many against the symbol rules, before the
// first is sent: the rules read once (symbolRules.ts), each order fitted (symbolRulesFit.ts) or
// refused, and what its output item says about the rules.

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
				description: `Reading the exchange’s symbol rules (tick size, step size, minimums) failed: ${why}. Nothing was sent. Run it again later, or set the option If Symbol Rules Can't Be Read to Send Without Checking to send orders unchecked (the exchange still refuses an order that breaks its rules).`,
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
