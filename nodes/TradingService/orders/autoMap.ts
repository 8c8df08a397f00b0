import type { IDataObject, INode } from 'n8n-workflow';

import { ORDER_FIELDS, isOrderFieldAlias, orderFieldOf, shownKey } from './orderRules';
import { inputError, numberMayHaveLostDigits } from '../helpers/validation';

/**
 * Create Many's "Map Each Item's Fields Automatically": the order fields read straight from an
 * input item's JSON, under the service's own names, with no expression per field. Fields that are
 * not order fields (a sheet's `row_number`, say) are ignored. What is read is never changed:
 * strings go on character for character, and a number only when its own text is a plain decimal
 * (`String(1e-8)` is "1e-8": refused, as is anything the number may already have lost). The order
 * rules (orderRules.ts) then check it exactly as in the other input modes.
 *
 * A key that nearly names an order field is refused, never ignored: another case ("Price"), a
 * space, underscore or hyphen ("newClientOrderId " from a sheet header, "time_in_force"), or a name
 * output items use ("clientOrderId", "origQty"). Ignored, it would drop what it holds: a business
 * key lost means the row is placed again on the next run. It is not mapped either: which of two
 * near names wins, or what a column really holds, is the workflow author's to say.
 */

const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** How an auto-mapped field is named in errors: the item and the field's own name. */
export function autoMapLabel(itemIndex: number): (field: string) => string {
	return (field) => `Item ${itemIndex}, field ${field}`;
}

function typeName(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

/** One auto-mapped field's value as the order rules read it: a string, or absent (undefined). */
function fieldValue(
	node: INode,
	field: string,
	value: unknown,
	itemIndex: number,
): string | undefined {
	const refuse = (problem: string, fix: string) =>
		inputError(node, autoMapLabel(itemIndex)(field), problem, fix, itemIndex);
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') return value;
	if (typeof value === 'number') {
		const text = String(value);
		if (!Number.isFinite(value) || !PLAIN_DECIMAL.test(text)) {
			throw refuse(
				`the number ${text} is not a plain decimal`,
				`Give it as a string in the input item (e.g. "0.00000001" rather than 1e-8): a number such as 1e-8, 1e21, NaN or Infinity cannot be sent exactly.`,
			);
		}
		if (numberMayHaveLostDigits(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
			throw refuse(
				`the number ${text} may have lost digits`,
				'Give it as a string in the input item (e.g. "0.123456789012345678"): a number of more than 15 significant digits is rounded before the node sees it (0.123456789012345678 arrives as 0.12345678901234568).',
			);
		}
		if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
			throw refuse(
				`the number ${text} is too large to be exact`,
				'Give it as a string in the input item: numbers above 9007199254740991 may already have lost digits.',
			);
		}
		return text;
	}
	throw refuse(
		`is ${typeName(value)}, not text or a number`,
		`Give each order field as a string (or a plain number for price, quantity and amount), e.g. "price": "50000.5".`,
	);
}

/**
 * The order of one input item, from its JSON. Refused with an error naming the item and field:
 * a value that is not text or a plain decimal number, a key that nearly names an order field (it
 * would otherwise be ignored), and an item without any order field.
 */
export function autoMappedOrder(node: INode, json: IDataObject, itemIndex: number): IDataObject {
	const raw: IDataObject = {};
	let found = 0;
	for (const key of Object.keys(json)) {
		const field = orderFieldOf(key);
		if (field === undefined) continue; // not an order field: ignored
		if (field !== key) {
			const shown = shownKey(key);
			throw inputError(
				node,
				autoMapLabel(itemIndex)(shown),
				`is not an order field, but ${field} is`,
				isOrderFieldAlias(key)
					? `Rename it to ${field}: output items call it ${key}, but an order takes it as ${field}, and ${shown} would otherwise be ignored.`
					: `Rename it to ${field}: field names are read exactly, and ${shown} would otherwise be ignored.`,
				itemIndex,
			);
		}
		found++;
		const value = fieldValue(node, field, json[key], itemIndex);
		if (value !== undefined) raw[field] = value;
	}
	if (found === 0) {
		throw inputError(
			node,
			`Item ${itemIndex}`,
			'has none of the order fields',
			`Map Each Item's Fields Automatically reads these fields from each item, named exactly so: ${ORDER_FIELDS.join(', ')}. Rename the item's fields (e.g. with an Edit Fields node), or choose the input mode Each Input Item Is One Order and map them with expressions.`,
			itemIndex,
		);
	}
	return raw;
}
