export declare function packageProject(name: string): {
    resolve: {
        conditions: string[];
    };
    ssr: {
        resolve: {
            conditions: string[];
            externalConditions: string[];
        };
    };
    test: {
        name: string;
        include: string[];
        environment: "node";
        testTimeout: number;
        hookTimeout: number;
        restoreMocks: boolean;
    };
};
//# sourceMappingURL=vitest.shared.d.ts.map