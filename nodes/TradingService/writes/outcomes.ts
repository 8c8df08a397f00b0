import { NodeApiError, type INode, type JsonObject, type NodeOperationError } from 'n8n-workflow';

/**
 * How a write ended: placed (the service executed it), rejected (it executed nothing, so sending it
 * again is safe once the cause is fixed) or unknown (it may have been executed; nobody could tell).
 * Every item and error about a write carries one of them.
 */
export type WriteOutcome = 'placed' | 'rejected' | 'unknown';

interface ErrorWithContext {
	context?: Record<string, unknown>;
}

/** The outcome an error reports for its write, if it is about one. */
export function outcomeOf(error: unknown): WriteOutcome | undefined {
	const outcome = (error as ErrorWithContext | null)?.context?.outcome;
	return outcome === 'placed' || outcome === 'rejected' || outcome === 'unknown'
		? outcome
		: undefined;
}

const OUTCOME_SENTENCES: Record<WriteOutcome, string> = {
	placed: 'Outcome: placed.',
	rejected: 'Outcome: rejected (nothing was executed).',
	unknown: 'Outcome: unknown (it may have been executed).',
};

/**
 * Marks an n8n error with the outcome of the write it is about: in its context (kept in the
 * execution data and in Continue On Fail items) and at the end of its description.
 */
export function withOutcome<E extends NodeApiError | NodeOperationError>(
	error: E,
	outcome: WriteOutcome,
): E {
	error.context.outcome = outcome;
	const sentence = OUTCOME_SENTENCES[outcome];
	const description = error.description ?? '';
	const stripped = description.replace(/ ?Outcome: (placed|rejected|unknown)[^.]*\.$/, '');
	error.description = stripped === '' ? sentence : `${stripped} ${sentence}`;
	return error;
}

/** How a write is named to the user, and what to look at when its outcome is unknown. */
export interface WriteWording {
	/** "transfer of 5 USDT from 1 to 2", "BUY LIMIT order for BTCUSDT". */
	what: string;
	/** "Check your open orders … for BTCUSDT". */
	howToCheck: string;
}

/**
 * A write whose outcome nobody knows: it may have been applied (a dropped connection, a timeout, a
 * 5xx, an "execution status unknown" code). Never sent again blindly; the user is told what to check.
 */
export function outcomeUnknownError(
	node: INode,
	wording: WriteWording,
	cause: string,
	detail: string,
	itemIndex: number | undefined,
): NodeApiError {
	const { what, howToCheck } = wording;
	const error = new NodeApiError(node, { outcome: 'unknown' } as JsonObject, {
		message: `Unknown outcome: the ${what} may or may not have been executed (${cause})`,
		description: `${detail}. The service did not confirm the ${what}, so it was not sent again: sending it again could execute it twice. ${howToCheck} before you run this again.`,
		itemIndex,
	});
	return withOutcome(error, 'unknown');
}
