import { parse, OperationDefinitionNode } from 'graphql';
import { operationLabel } from './operation-observer';

const operationOf = (query: string) => parse(query).definitions[0] as OperationDefinitionNode;

describe('operationLabel', () => {
  it('is the first root field, never the client-chosen operation name', () => {
    expect(operationLabel(operationOf('query Attacker_Chosen_Name_123 { events(orgId: 1) { items { id } } }'))).toBe(
      'events',
    );
    expect(operationLabel(operationOf('query { x: ping(orgId: 1, eventId: 1) { status } }'))).toBe('ping');
    expect(operationLabel(operationOf('query Q { ...F }'))).toBe('other');
    expect(operationLabel(undefined)).toBe('other');
  });
});
