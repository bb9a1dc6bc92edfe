import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('Ping')
export class PingType {
  @Field({ description: 'Always "ok".' }) status!: string;
  @Field(() => Int) orgId!: number;
  @Field(() => Int) eventId!: number;
}
