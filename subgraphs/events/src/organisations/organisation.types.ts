import { Field, GraphQLISODateTime, Int, ObjectType } from 'type-graphql';

@ObjectType('Organisation', { description: 'An organisation: it owns events, members and API keys.' })
export class OrganisationType {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() slug!: string;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => String, {
    nullable: true,
    description:
      "The caller's role in it: admin, user, or null (an API key, or a platform administrator who is no member).",
  })
  role!: string | null;
}
