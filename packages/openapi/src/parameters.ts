import type { DescField } from "@bufbuild/protobuf";
import { FieldBehavior } from "@folio/http-transcoder/google/api/field_behavior_pb.js";
import { type HttpRoute, queryParameters as transcoderQueryParameters } from "@folio/http-transcoder/rules";
import type { CommentLookup } from "./comments.js";
import type { OpenApiDocumentOptions } from "./document-options.js";
import { getFieldBehaviors } from "./field-behavior.js";
import type { ParameterObject } from "./openapi-types.js";
import type { SchemaBuilder } from "./schemas.js";
import { fieldRuleNotes, requiredByRules, rulesParagraph } from "./validation-rules.js";

/**
 * The path parameters of a route: one per variable, required, with the pattern its template
 * gives it.
 *
 * @private
 */
export function pathParameters(
  route: HttpRoute,
  schemas: SchemaBuilder,
  comments: CommentLookup,
): ParameterObject[] {
  return route.pathVariables.map((variable) => {
    const leaf = variable.fields[variable.fields.length - 1] as DescField;
    const schema = schemas.fieldSchema(leaf, "request");
    const description: string[] = [];
    const comment = comments(leaf);
    if (comment !== undefined) description.push(comment);
    const rules = rulesParagraph(fieldRuleNotes(leaf));
    if (rules !== undefined) description.push(rules);
    const captured = route.template.segments.slice(variable.start, variable.end);
    if (variable.pattern !== "*") {
      // The field's own pattern (protovalidate) holds too.
      if (schema.pattern !== undefined) schema.allOf = [...(schema.allOf ?? []), { pattern: schema.pattern }];
      schema.pattern = `^${captured.map(segmentPattern).join("/")}$`;
      description.push(
        variable.multiSegment
          ? `Format: \`${variable.pattern}\` (\`*\` is one path segment), its \`/\` sent as they are, not percent-encoded.`
          : `Format: \`${variable.pattern}\`.`,
      );
    }
    const parameter: ParameterObject = {
      name: variable.fieldPath.join("."),
      in: "path",
      required: true,
      schema,
    };
    if (description.length > 0) parameter.description = description.join("\n\n");
    return parameter;
  });
}

/** A regular expression for one segment of a path template. */
function segmentPattern(segment: HttpRoute["template"]["segments"][number]): string {
  switch (segment.kind) {
    case "literal":
      return segment.value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    case "wildcard":
      return "[^/]+";
    case "deep-wildcard":
      return ".*";
  }
}

/**
 * The query parameters of a route, as the transcoder binds them (`queryParameters` of
 * @folio/http-transcoder): every field the path and the body leave unbound that a URL can hold,
 * nested ones by their dotted path. Output-only fields are left out: a client has no reason to
 * send them. The transcoder takes proto and JSON names alike; the document names parameters as
 * the JSON bodies do.
 *
 * @private
 */
export function queryParameters(
  route: HttpRoute,
  schemas: SchemaBuilder,
  comments: CommentLookup,
  useProtoFieldName: boolean,
): ParameterObject[] {
  const parameters: ParameterObject[] = [];
  for (const query of transcoderQueryParameters(route)) {
    if (query.fields.some((field) => getFieldBehaviors(field).has(FieldBehavior.OUTPUT_ONLY))) continue;
    const field = query.fields[query.fields.length - 1] as DescField;
    const parameter: ParameterObject = {
      name: useProtoFieldName ? query.protoName : query.name,
      in: "query",
      schema: schemas.fieldSchema(field, "request"),
    };
    if (query.repeated) {
      parameter.style = "form";
      parameter.explode = true;
    }
    // protovalidate's `required` holds when the message holding the field is sent: a top-level one.
    if (query.required || (query.fields.length === 1 && requiredByRules(field))) parameter.required = true;
    if (field.deprecated) parameter.deprecated = true;
    const paragraphs = [comments(field), rulesParagraph(fieldRuleNotes(field))].filter(
      (p) => p !== undefined,
    );
    if (paragraphs.length > 0) parameter.description = paragraphs.join("\n\n");
    parameters.push(parameter);
  }
  return parameters;
}

/** Request headers an operation reads, as header parameters. @private */
export function headerParameters(headers: ReturnType<NonNullable<OpenApiDocumentOptions["requestHeaders"]>>) {
  return Object.entries(headers ?? {}).map(
    ([name, header]): ParameterObject => ({
      name,
      in: "header",
      ...(header.description === undefined ? {} : { description: header.description }),
      ...(header.required === true ? { required: true } : {}),
      schema: header.schema,
    }),
  );
}
