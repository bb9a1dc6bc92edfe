import { Directive, Field, ID, ObjectType } from 'type-graphql';

/** A photo owned by the images subgraph; search returns references that the gateway completes. */
@ObjectType('Photo')
@Directive('@key(fields: "id", resolvable: false)')
export class PhotoRef {
  @Field(() => ID) id!: string;
}
