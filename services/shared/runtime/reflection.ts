import {
  create,
  type DescEnum,
  type DescExtension,
  type DescFile,
  type DescMessage,
  type DescService,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import * as v1 from "@movement-detection/proto/grpc/reflection/v1";
import * as v1alpha from "@movement-detection/proto/grpc/reflection/v1alpha";

/**
 * gRPC server reflection (grpc.reflection.v1 and its older name v1alpha) for a service's own APIs,
 * so that grpcurl, `buf curl --list-methods` and grpc-js reflection clients work against any
 * service without local .proto files. Descriptors come from the generated code (protobuf-es
 * embeds each file's FileDescriptorProto); a file is answered with all it depends on.
 *
 * It answers the same before and after the service is ready (like health), and asks nothing of
 * the caller beyond what the server's interceptors already ask.
 */
export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const index = indexDescriptors(services);
  const listed = [
    ...new Set([
      ...services.map((s) => s.typeName),
      v1.ServerReflection.typeName,
      v1alpha.ServerReflection.typeName,
    ]),
  ].sort();
  router.service(v1.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield answer(v1, request, index, listed);
    },
  });
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        // The same messages under the older package name: built with v1alpha's schema.
        yield answer(
          v1alpha,
          request,
          index,
          listed,
        ) as unknown as v1alpha.ServerReflectionResponse;
      }
    },
  });
}

/** What reflection can tell: every file reachable from the services, by name and by symbol. */
interface DescriptorIndex {
  readonly files: ReadonlyMap<string, DescFile>;
  readonly symbols: ReadonlyMap<string, DescFile>;
  readonly extensions: ReadonlyMap<string, DescExtension[]>;
}

function indexDescriptors(services: readonly DescService[]): DescriptorIndex {
  const files = new Map<string, DescFile>();
  const symbols = new Map<string, DescFile>();
  const extensions = new Map<string, DescExtension[]>();
  const addMessage = (file: DescFile, message: DescMessage) => {
    symbols.set(message.typeName, file);
    for (const nested of message.nestedMessages) addMessage(file, nested);
    for (const nested of message.nestedEnums) symbols.set(nested.typeName, file);
    for (const extension of message.nestedExtensions) addExtension(file, extension);
  };
  const addExtension = (file: DescFile, extension: DescExtension) => {
    symbols.set(extension.typeName, file);
    const list = extensions.get(extension.extendee.typeName) ?? [];
    list.push(extension);
    extensions.set(extension.extendee.typeName, list);
  };
  const addFile = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const service of file.services) {
      symbols.set(service.typeName, file);
      for (const method of service.methods) symbols.set(`${service.typeName}.${method.name}`, file);
    }
    for (const message of file.messages) addMessage(file, message);
    for (const enumeration of file.enums as DescEnum[]) symbols.set(enumeration.typeName, file);
    for (const extension of file.extensions) addExtension(file, extension);
    for (const dependency of file.dependencies) addFile(dependency);
  };
  for (const service of [...services, v1.ServerReflection, v1alpha.ServerReflection])
    addFile(service.file);
  return { files, symbols, extensions };
}

/** A file and every file it imports, transitively, dependencies first. */
function withDependencies(file: DescFile): DescFile[] {
  const ordered: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (current: DescFile) => {
    if (seen.has(current.proto.name)) return;
    seen.add(current.proto.name);
    for (const dependency of current.dependencies) visit(dependency);
    ordered.push(current);
  };
  visit(file);
  return ordered;
}

type Reflection = typeof v1 | typeof v1alpha;
type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;

function answer(
  api: Reflection,
  request: Request,
  index: DescriptorIndex,
  listed: readonly string[],
) {
  const base = { validHost: request.host, originalRequest: request };
  const files = (file: DescFile | undefined, what: string) =>
    file
      ? {
          case: "fileDescriptorResponse" as const,
          value: {
            fileDescriptorProto: withDependencies(file).map((f) =>
              toBinary(FileDescriptorProtoSchema, f.proto),
            ),
          },
        }
      : {
          case: "errorResponse" as const,
          value: { errorCode: Code.NotFound, errorMessage: `${what} not found` },
        };
  const ask = request.messageRequest;
  let response: MessageInitShape<typeof v1.ServerReflectionResponseSchema>["messageResponse"];
  switch (ask.case) {
    case "listServices":
      response = {
        case: "listServicesResponse" as const,
        value: { service: listed.map((name) => ({ name })) },
      };
      break;
    case "fileByFilename":
      response = files(index.files.get(ask.value), `file ${ask.value}`);
      break;
    case "fileContainingSymbol":
      response = files(index.symbols.get(ask.value.replace(/^\./, "")), `symbol ${ask.value}`);
      break;
    case "fileContainingExtension": {
      const extension = index.extensions
        .get(ask.value.containingType)
        ?.find((e) => e.number === ask.value.extensionNumber);
      response = files(
        extension?.file,
        `extension ${ask.value.containingType}(${ask.value.extensionNumber})`,
      );
      break;
    }
    case "allExtensionNumbersOfType":
      response = index.symbols.has(ask.value)
        ? {
            case: "allExtensionNumbersResponse" as const,
            value: {
              baseTypeName: ask.value,
              extensionNumber: (index.extensions.get(ask.value) ?? []).map((e) => e.number),
            },
          }
        : {
            case: "errorResponse" as const,
            value: { errorCode: Code.NotFound, errorMessage: `type ${ask.value} not found` },
          };
      break;
    default:
      response = {
        case: "errorResponse" as const,
        value: { errorCode: Code.InvalidArgument, errorMessage: "the request names no question" },
      };
  }
  return create(api.ServerReflectionResponseSchema as typeof v1.ServerReflectionResponseSchema, {
    ...base,
    originalRequest: request as v1.ServerReflectionRequest,
    messageResponse: response,
  });
}
