import {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';

/** Most selections walked while opening an operation's fragments (see rootFieldsOf). */
export const MAX_SELECTIONS = 10_000;

export class FragmentExpansionError extends Error {
  constructor(readonly maxSelections: number) {
    super(`The operation's fragments expand to more than ${maxSelections} selections`);
  }
}

/** The operation a request runs: the one named, or the only one. */
export function selectedOperation(
  document: DocumentNode,
  operationName?: string | null,
): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName) return operations.find((o) => o.name?.value === operationName);
  return operations.length === 1 ? operations[0] : undefined;
}

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

/**
 * The root fields an operation really selects: inline fragments (`... on Mutation { }`) and named
 * fragments are opened, recursively, so wrapping a field cannot hide it. A fragment spread again
 * inside itself (a cycle, which validation refuses later) is not reopened. Fragments that spread
 * each other over and over expand exponentially: past `maxSelections` walked selections this
 * throws FragmentExpansionError rather than walk on.
 */
export function rootFieldsOf(
  operation: OperationDefinitionNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  maxSelections = MAX_SELECTIONS,
): FieldNode[] {
  const fields: FieldNode[] = [];
  let walked = 0;
  const collect = (set: SelectionSetNode, opened: ReadonlySet<string>) => {
    for (const s of set.selections) {
      if (++walked > maxSelections) throw new FragmentExpansionError(maxSelections);
      if (s.kind === Kind.FIELD) fields.push(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) collect(s.selectionSet, opened);
      else {
        const fragment = fragments.get(s.name.value);
        if (fragment && !opened.has(s.name.value)) collect(fragment.selectionSet, new Set([...opened, s.name.value]));
      }
    }
  };
  if (operation) collect(operation.selectionSet, new Set());
  return fields;
}
