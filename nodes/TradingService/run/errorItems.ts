import type { IDataObject, INode } from 'n8n-workflow';

import { toNodeError } from '../transport';
import { outcomeOf, withOutcome } from '../writes/outcomes';

/** A Continue On Fail item for an error: its message, description and, for a write, its outcome. */
export function errorItemJson(error: Error & { description?: string | null }): IDataObject {
	const json: IDataObject = { error: error.message, description: error.description ?? undefined };
	const outcome = outcomeOf(error);
	if (outcome !== undefined) json.outcome = outcome;
	return json;
}

/**
 * The error of a write as n8n gets it: an error the write engine did not mark was thrown before
 * anything was sent (bad input, a missing parameter), so nothing was executed.
 */
export function writeError(node: INode, error: unknown) {
	const nodeError = toNodeError(node, error);
	return outcomeOf(nodeError) === undefined ? withOutcome(nodeError, 'rejected') : nodeError;
}
