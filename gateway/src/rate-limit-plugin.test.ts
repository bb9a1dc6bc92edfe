import { FieldNode, OperationDefinitionNode, parse } from 'graphql';
import { chargeOf } from './rate-limit-plugin';
import { fragmentsOf, rootFieldsOf } from './operations/root-fields';

const fieldsOf = (query: string): FieldNode[] => {
  const document = parse(query);
  return rootFieldsOf(document.definitions[0] as OperationDefinitionNode, fragmentsOf(document));
};
const neverCached = async () => false;

describe('chargeOf', () => {
  it('charges one face-matching unit per matching root field, fragments included', async () => {
    expect(await chargeOf(fieldsOf('mutation { a: startVideoClipping b: startVideoClipping ... on Mutation { searchFaces } ...F } fragment F on Mutation { searchFaces }'), neverCached)).toEqual({
      cls: 'matching',
      units: 4,
    });
  });

  it('charges one read for an operation without face matching', async () => {
    expect(await chargeOf(fieldsOf('query { ping events }'), neverCached)).toEqual({ cls: 'read', units: 1 });
  });

  it('counts a cached face-search retry as a read, field by field', async () => {
    const cachedWhenRetry = async (field: FieldNode) => field.arguments?.some((a) => a.name.value === 'requestId') ?? false;
    expect(await chargeOf(fieldsOf('mutation { searchFaces(requestId: "r") }'), cachedWhenRetry)).toEqual({ cls: 'read', units: 1 });
    expect(await chargeOf(fieldsOf('mutation { a: searchFaces(requestId: "r") b: searchFaces }'), cachedWhenRetry)).toEqual({ cls: 'matching', units: 1 });
  });
});
